/**
 * A synthetic corpus for cairn's session benchmark (bench/sessions.ts): about
 * three months of coding-agent sessions on one fictional project, "ledgerly",
 * a small TypeScript invoicing web app, written by hand for this benchmark and
 * not taken from real transcripts. Each session works on one main task over a
 * few turns (prompt, tool calls, closing answer); some sessions were compacted
 * part-way. The questions have known answering turns: `paraphrase` questions
 * ask about what a turn decided or found in other words than the turn uses;
 * `file` questions name a file and share no other content word with the
 * answering turns, so only the turns' touched files can find them;
 * `in-context` questions are asked from a compacted session about a topic its
 * own post-compaction turns also cover, which must be left out, so only the
 * earlier answering turns (before the compaction, or in older sessions) count.
 * @module
 */

/** One tool call of a turn, as Claude Code records it (paths relative to the project root). */
export interface CorpusTool {
  name: "Read" | "Edit" | "Write" | "Bash" | "Grep" | "Glob";
  /** Read/Edit/Write: { file_path }, Bash: { command }, Grep: { pattern, path? }, Glob: { pattern } */
  input: Record<string, string>;
}
/** One turn: the user's prompt, the agent's tool calls, its closing answer. */
export interface CorpusTurn {
  prompt: string;
  tools: CorpusTool[];
  answer: string;
}
/** One session; `compactAfter`: the agent's context was compacted after this turn index. */
export interface CorpusSession {
  id: string;
  startedAt: string;
  turns: CorpusTurn[];
  compactAfter?: number;
}
/** A question and the turns that answer it (`session` id, turn index). */
export interface CorpusQuestion {
  query: string;
  kind: "paraphrase" | "file" | "in-context";
  gold: Array<{ session: string; turn: number }>;
  /** in-context questions: the session asking, whose turns after its compaction must not be returned */
  asking?: string;
}

export const PROJECT = "ledgerly"; // the fictional project's folder name

export const SESSIONS: CorpusSession[] = [
  // 01: local Postgres via docker compose, seed script
  {
    id: "b3f0c2a1-0000-4000-8000-000000000001",
    startedAt: "2025-03-03T09:12:00Z",
    turns: [
      {
        prompt:
          "Set up a docker-compose file so I can run Postgres locally for ledgerly instead of using the shared staging database.",
        tools: [
          { name: "Read", input: { file_path: "package.json" } },
          { name: "Read", input: { file_path: "src/db/pool.ts" } },
          { name: "Write", input: { file_path: "docker-compose.yml" } },
        ],
        answer:
          "Wrote docker-compose.yml with a postgres:16-alpine service, a named volume pgdata and a pg_isready healthcheck. src/db/pool.ts already reads DATABASE_URL, so no code needed to move.",
      },
      {
        prompt:
          "docker compose up fails with 'Bind for 0.0.0.0:5432 failed: port is already allocated'. I have another Postgres running for a different project.",
        tools: [
          { name: "Bash", input: { command: "docker compose up -d" } },
          { name: "Edit", input: { file_path: "docker-compose.yml" } },
          { name: "Edit", input: { file_path: ".env.example" } },
        ],
        answer:
          "Mapped the container to host port 5433 (5433:5432) and set DATABASE_URL in .env.example to postgres://ledgerly:ledgerly@localhost:5433/ledgerly. The container starts and reports healthy.",
      },
      {
        prompt:
          "Write a script that fills the local database with a few customers and invoices so the dashboard isn't empty.",
        tools: [
          { name: "Read", input: { file_path: "migrations/0001_init.sql" } },
          { name: "Write", input: { file_path: "scripts/seed.sh" } },
          { name: "Bash", input: { command: "chmod +x scripts/seed.sh" } },
        ],
        answer:
          "The script pipes SQL into psql: 3 customers (Acme GmbH, Northwind, Blue Harbor) and 12 invoices across draft, sent and paid states, dated within the last 90 days.",
      },
      {
        prompt: "run it against the compose database",
        tools: [{
          name: "Bash",
          input: {
            command:
              "DATABASE_URL=postgres://ledgerly:ledgerly@localhost:5433/ledgerly ./scripts/seed.sh",
          },
        }],
        answer: "Ran cleanly: INSERT 0 3 for customers and INSERT 0 12 for invoices.",
      },
      {
        prompt: "commit it",
        tools: [{
          name: "Bash",
          input: { command: 'git commit -am "Local Postgres via docker compose, seed script"' },
        }],
        answer: "Committed as 4e1a9c2.",
      },
    ],
  },
  // 02: per-country tax rates
  {
    id: "b3f0c2a1-0000-4000-8000-000000000002",
    startedAt: "2025-03-05T10:05:00Z",
    turns: [
      {
        prompt:
          "Invoices use a hard-coded 19% VAT. We need per-country tax rates stored in the database. Start with a migration.",
        tools: [
          { name: "Glob", input: { pattern: "migrations/*.sql" } },
          { name: "Read", input: { file_path: "migrations/0006_invoice_notes.sql" } },
          { name: "Write", input: { file_path: "migrations/0007_add_tax_rates.sql" } },
        ],
        answer:
          "The migration creates a tax_rates table (country_code char(2), rate numeric(5,4), valid_from date) with a unique index on (country_code, valid_from), seeded with DE 0.19, FR 0.20, NL 0.21 and AT 0.20.",
      },
      {
        prompt: "Now make the tax calculation use it.",
        tools: [
          { name: "Read", input: { file_path: "src/billing/tax.ts" } },
          { name: "Edit", input: { file_path: "src/billing/tax.ts" } },
          { name: "Edit", input: { file_path: "src/db/schema.ts" } },
        ],
        answer:
          "taxFor(invoice) now looks up the rate valid on the invoice's issue date for the customer's country, and falls back to 0 with a warning for unknown countries instead of throwing. The 0.19 constant is gone.",
      },
      {
        prompt: "Tests are failing now, fix them.",
        tools: [
          { name: "Bash", input: { command: "npx vitest run test/tax.test.ts" } },
          { name: "Edit", input: { file_path: "test/tax.test.ts" } },
        ],
        answer:
          "The tests assumed the 19% constant; they now insert tax_rates rows in beforeEach. 14 tests pass.",
      },
      {
        prompt: "What happens for reverse-charge B2B customers in the EU?",
        tools: [
          { name: "Grep", input: { pattern: "vat_id", path: "src" } },
          { name: "Read", input: { file_path: "src/db/customers_repo.ts" } },
          { name: "Edit", input: { file_path: "src/billing/tax.ts" } },
        ],
        answer:
          "Nothing special yet: customers with a vat_id in another EU country still pay their country's rate. Reverse charge needs a 0 rate plus a legal note on the PDF; I left a TODO in tax.ts rather than guess the legal wording.",
      },
      {
        prompt: "ok, commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "Per-country tax rates"' } }],
        answer: "Committed as 'Per-country tax rates'.",
      },
    ],
  },
  // 03: CI red, node engine
  {
    id: "b3f0c2a1-0000-4000-8000-000000000003",
    startedAt: "2025-03-07T08:47:00Z",
    turns: [
      {
        prompt: "CI is red on main since this morning, can you look? It dies in the install step.",
        tools: [
          { name: "Read", input: { file_path: ".github/workflows/ci.yml" } },
          { name: "Bash", input: { command: "gh run view --log-failed" } },
        ],
        answer:
          "npm ci fails with 'EBADENGINE Unsupported engine: required node >=20.11'. The workflow pins node-version: 18 while package.json's engines field was bumped to >=20.11 yesterday.",
      },
      {
        prompt: "Bump the workflow to node 20 then, and cache npm while you're there.",
        tools: [
          { name: "Write", input: { file_path: ".nvmrc" } },
          { name: "Edit", input: { file_path: ".github/workflows/ci.yml" } },
        ],
        answer:
          "The workflow now uses actions/setup-node@v4 with node-version-file: .nvmrc and cache: npm, and .nvmrc pins 20.11 so local shells and CI agree.",
      },
      {
        prompt: "push and watch the run",
        tools: [
          { name: "Bash", input: { command: "git push" } },
          { name: "Bash", input: { command: "gh run watch" } },
        ],
        answer: "The run passed in 3m12s, down from about 4m40s thanks to the npm cache.",
      },
    ],
  },
  // 04: PDF umlauts
  {
    id: "b3f0c2a1-0000-4000-8000-000000000004",
    startedAt: "2025-03-10T14:20:00Z",
    turns: [
      {
        prompt:
          "Customer names with umlauts come out as garbage in the PDF, e.g. 'MÃ¼ller' instead of 'Müller'.",
        tools: [
          { name: "Read", input: { file_path: "src/billing/invoice_pdf.ts" } },
          { name: "Grep", input: { pattern: "registerFont", path: "src" } },
        ],
        answer:
          "The renderer uses pdfkit's built-in Helvetica, which only covers WinAnsi, and the name is double-encoded because we call Buffer.from(name, 'latin1') before passing it in.",
      },
      {
        prompt: "Fix it properly.",
        tools: [
          {
            name: "Bash",
            input: {
              command:
                "curl -L -o assets/fonts/Inter-Regular.ttf https://github.com/rsms/inter/raw/master/docs/font-files/Inter-Regular.ttf",
            },
          },
          { name: "Edit", input: { file_path: "src/billing/invoice_pdf.ts" } },
        ],
        answer:
          "Embedded Inter-Regular.ttf via doc.registerFont('body', ...) and removed the latin1 conversion. 'Müller', 'Øresund' and 'Łódź' now render correctly.",
      },
      {
        prompt: "Add a test so this doesn't regress.",
        tools: [
          { name: "Write", input: { file_path: "test/invoice_pdf.test.ts" } },
          { name: "Bash", input: { command: "npx vitest run test/invoice_pdf.test.ts" } },
        ],
        answer:
          "The test renders an invoice for 'Jürgen Müller', extracts the text with pdf-parse and asserts the name round-trips. Passes.",
      },
      {
        prompt:
          "pdf-parse is a new dev dependency? Make sure it's in devDependencies, not dependencies.",
        tools: [
          { name: "Read", input: { file_path: "package.json" } },
          { name: "Edit", input: { file_path: "package.json" } },
          { name: "Bash", input: { command: "npm install" } },
        ],
        answer:
          "It had landed in dependencies; moved pdf-parse to devDependencies and reran npm install, so the production image won't ship it.",
      },
      {
        prompt: "thanks, commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "Unicode font for PDFs"' } }],
        answer: "Committed.",
      },
    ],
  },
  // 05: outgoing webhook backoff
  {
    id: "b3f0c2a1-0000-4000-8000-000000000005",
    startedAt: "2025-03-12T09:30:00Z",
    turns: [
      {
        prompt:
          "Our outgoing webhooks retry forever when a customer's endpoint is down; one endpoint got 40k requests over the weekend. Look at src/api/webhooks.ts.",
        tools: [
          { name: "Read", input: { file_path: "src/api/webhooks.ts" } },
          { name: "Read", input: { file_path: "src/jobs/scheduler.ts" } },
        ],
        answer:
          "deliverWebhook re-enqueues on any non-2xx response with a fixed 30 s delay and no attempt counter, so a dead endpoint is hit 2,880 times a day per event.",
      },
      {
        prompt: "Add exponential backoff and give up at some point.",
        tools: [
          { name: "Edit", input: { file_path: "src/api/webhooks.ts" } },
          { name: "Edit", input: { file_path: "src/jobs/scheduler.ts" } },
        ],
        answer:
          "Delays now double from 1 minute (1, 2, 4, 8, 16 min) with ±20% jitter, and delivery stops after 5 attempts: after about 31 minutes of failures a human should look, and the event is marked failed so it can be replayed from the dashboard.",
      },
      {
        prompt: "Store the attempt count so we can see it in the UI.",
        tools: [
          { name: "Write", input: { file_path: "migrations/0008_webhook_attempts.sql" } },
          { name: "Edit", input: { file_path: "src/db/schema.ts" } },
        ],
        answer:
          "The migration adds attempts int not null default 0 and last_error text to webhook_deliveries; the worker increments attempts and records the HTTP status or network error.",
      },
      {
        prompt: "Write tests for the backoff.",
        tools: [
          { name: "Write", input: { file_path: "test/webhooks.test.ts" } },
          { name: "Bash", input: { command: "npx vitest run test/webhooks.test.ts" } },
        ],
        answer:
          "The tests use fake timers and a stub endpoint returning 503: they assert delays of 60, 120, 240, 480 and 960 s within the jitter band and that a sixth attempt never happens. 6 tests pass.",
      },
      {
        prompt: "commit and open a PR",
        tools: [
          { name: "Bash", input: { command: 'git commit -am "Webhook backoff"' } },
          { name: "Bash", input: { command: "gh pr create --fill" } },
        ],
        answer: "Opened PR #41 'Webhook backoff, give up after 5 attempts'.",
      },
    ],
  },
  // 06: flaky recurring test, timezone
  {
    id: "b3f0c2a1-0000-4000-8000-000000000006",
    startedAt: "2025-03-14T11:02:00Z",
    turns: [
      {
        prompt: "test/recurring.test.ts fails maybe one run in five on CI but never locally.",
        tools: [
          { name: "Read", input: { file_path: "test/recurring.test.ts" } },
          { name: "Read", input: { file_path: "src/billing/recurring.ts" } },
          {
            name: "Bash",
            input: {
              command: "for i in $(seq 20); do npx vitest run test/recurring.test.ts; done",
            },
          },
        ],
        answer:
          "Couldn't reproduce it in 20 local runs. The failing assertion is 'expected 2025-04-01 to equal 2025-03-31' in nextRunDate for monthly schedules.",
      },
      {
        prompt: "Could it be a timezone thing? CI runs in UTC.",
        tools: [
          { name: "Bash", input: { command: "TZ=UTC npx vitest run test/recurring.test.ts" } },
          {
            name: "Bash",
            input: { command: "TZ=Pacific/Auckland npx vitest run test/recurring.test.ts" },
          },
        ],
        answer:
          "Yes: under TZ=Pacific/Auckland it fails every time. nextRunDate builds dates with new Date(y, m, d) in local time and serialises with toISOString(); the fixture uses Europe/Berlin, so CI jobs starting between 22:00 and 24:00 UTC, when the Berlin date is already the next day, fail.",
      },
      {
        prompt: "Fix the date math rather than the test.",
        tools: [{ name: "Edit", input: { file_path: "src/billing/recurring.ts" } }],
        answer:
          "nextRunDate now works on calendar dates (Temporal.PlainDate) in the schedule's timezone and converts to an instant only at the end; month-end schedules clamp to the last day (Jan 31 → Feb 28).",
      },
      {
        prompt: "And pin the clock in the test.",
        tools: [
          { name: "Edit", input: { file_path: "test/recurring.test.ts" } },
          {
            name: "Bash",
            input: {
              command:
                "for tz in UTC Europe/Berlin Pacific/Auckland; do TZ=$tz npx vitest run test/recurring.test.ts; done",
            },
          },
        ],
        answer:
          "The tests now use vi.setSystemTime with instants on both sides of midnight in Berlin and Auckland. 50 runs under three TZ values, all green.",
      },
      {
        prompt: "add the temporal polyfill properly to package.json",
        tools: [
          { name: "Bash", input: { command: "npm install @js-temporal/polyfill" } },
          { name: "Read", input: { file_path: "package.json" } },
        ],
        answer: "Added @js-temporal/polyfill ^0.4.4 to dependencies.",
      },
    ],
  },
  // 07: rate limiting
  {
    id: "b3f0c2a1-0000-4000-8000-000000000007",
    startedAt: "2025-03-17T16:40:00Z",
    turns: [
      {
        prompt:
          "Someone is hammering POST /api/invoices with a leaked API key. Add rate limiting to the API.",
        tools: [
          { name: "Read", input: { file_path: "src/api/server.ts" } },
          { name: "Read", input: { file_path: "src/api/auth.ts" } },
        ],
        answer:
          "server.ts registers routes on a plain Hono app with no middleware besides auth, and requests are authenticated per API key in auth.ts, so the key is the natural bucket.",
      },
      {
        prompt: "Implement it, keep it in-memory for now.",
        tools: [
          { name: "Write", input: { file_path: "src/api/rate_limit.ts" } },
          { name: "Edit", input: { file_path: "src/api/server.ts" } },
        ],
        answer:
          "Token bucket per API key: 60 requests per minute with bursts of 20, answering 429 with a Retry-After header. Mounted after auth so unauthenticated requests aren't counted.",
      },
      {
        prompt: "We run two instances behind the load balancer, so in-memory won't cut it, right?",
        tools: [
          { name: "Read", input: { file_path: "docker-compose.yml" } },
          { name: "Grep", input: { pattern: "redis", path: "src" } },
        ],
        answer:
          "Right, each instance would allow 60/min, so the effective limit doubles. There's no Redis yet; Postgres with an UPDATE ... RETURNING per key would work but costs a query per request.",
      },
      {
        prompt: "Let's add Redis to compose and use it.",
        tools: [
          { name: "Edit", input: { file_path: "docker-compose.yml" } },
          { name: "Edit", input: { file_path: "src/api/rate_limit.ts" } },
          { name: "Edit", input: { file_path: "package.json" } },
        ],
        answer:
          "Added a redis:7-alpine service and switched the limiter to ioredis with a Lua script that runs the token bucket atomically, so both instances share one bucket per key; REDIS_URL defaults to redis://localhost:6379.",
      },
      {
        prompt: "run tests",
        tools: [{ name: "Bash", input: { command: "npm test" } }],
        answer: "All 187 tests pass; the limiter tests use ioredis-mock.",
      },
      {
        prompt: "commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "Rate limiting via Redis"' } }],
        answer: "Committed.",
      },
    ],
  },
  // 08: money as integer cents
  {
    id: "b3f0c2a1-0000-4000-8000-000000000008",
    startedAt: "2025-03-19T09:55:00Z",
    turns: [
      {
        prompt:
          "An invoice with three line items of 0.10 EUR × 3 shows a total of 0.8999999999 on the dashboard.",
        tools: [
          { name: "Read", input: { file_path: "src/billing/totals.ts" } },
          { name: "Read", input: { file_path: "src/ui/Dashboard.tsx" } },
        ],
        answer:
          "totals.ts sums floats: 0.1 * 3 three times gives 0.8999999999999999, and Dashboard.tsx prints the raw number.",
      },
      {
        prompt: "Switch money to integer cents everywhere.",
        tools: [
          { name: "Grep", input: { pattern: "amount", path: "src" } },
          { name: "Edit", input: { file_path: "src/billing/totals.ts" } },
          { name: "Edit", input: { file_path: "src/billing/currency.ts" } },
          { name: "Edit", input: { file_path: "src/billing/tax.ts" } },
        ],
        answer:
          "Amounts are integer minor units now; tax is computed per line and rounded half-even (banker's rounding) to match the accountant's spreadsheet, and formatMoney(cents, currency) uses Intl.NumberFormat.",
      },
      {
        prompt: "The database columns are numeric(10,2), do we need a migration?",
        tools: [
          { name: "Read", input: { file_path: "migrations/0001_init.sql" } },
          { name: "Write", input: { file_path: "migrations/0009_amounts_in_cents.sql" } },
        ],
        answer:
          "Yes: it converts line_items.unit_price and invoices.total to bigint (value * 100) in one transaction. It locks both tables; on prod's ~80k invoices that's a few seconds.",
      },
      {
        prompt: "JPY has no cents though.",
        tools: [
          { name: "Edit", input: { file_path: "src/billing/currency.ts" } },
          { name: "Edit", input: { file_path: "test/currency.test.ts" } },
        ],
        answer:
          "The minor-unit exponent now comes from Intl.NumberFormat(...).resolvedOptions().maximumFractionDigits: 0 for JPY and KRW, 3 for BHD and KWD, 2 otherwise. Tests cover each.",
      },
      {
        prompt: "run everything",
        tools: [{ name: "Bash", input: { command: "npm test" } }],
        answer: "203 tests pass.",
      },
      {
        prompt: "great, commit it",
        tools: [{
          name: "Bash",
          input: { command: 'git commit -am "Money as integer minor units"' },
        }],
        answer: "Committed 'Money as integer minor units'.",
      },
    ],
  },
  // 09: dependency bumps
  {
    id: "b3f0c2a1-0000-4000-8000-000000000009",
    startedAt: "2025-03-21T13:15:00Z",
    turns: [
      {
        prompt: "There are 9 open dependabot PRs. Can you batch the safe ones?",
        tools: [
          { name: "Bash", input: { command: "gh pr list --author app/dependabot" } },
          { name: "Read", input: { file_path: "package.json" } },
        ],
        answer:
          "7 are patch or minor bumps (zod, date-fns, pino, hono, vitest, @types/node, eslint-plugin-react); vite 5 → 6 and pg 8.11 → 8.13 deserve a closer look.",
      },
      {
        prompt: "Do the minor ones in one commit.",
        tools: [
          {
            name: "Bash",
            input: {
              command:
                "npm install zod@latest date-fns@latest pino@latest hono@latest vitest@latest @types/node@20 eslint-plugin-react@latest",
            },
          },
          { name: "Bash", input: { command: "npm test" } },
        ],
        answer:
          "Upgraded the 7 packages, lockfile regenerated, all tests pass. Closed those dependabot PRs with a reference to the combined commit.",
      },
      {
        prompt: "Now vite 6.",
        tools: [
          { name: "Bash", input: { command: "npm install vite@6 @vitejs/plugin-react@4.3" } },
          { name: "Bash", input: { command: "npm run build" } },
          { name: "Edit", input: { file_path: "vite.config.ts" } },
        ],
        answer:
          "The build failed with 'The CJS build of Vite's Node API is deprecated' because the config used require('path'); converted it to ESM imports. Build succeeds and the bundle is 3% smaller.",
      },
      {
        prompt: "Group dependabot updates in the future so we don't get 9 PRs.",
        tools: [{ name: "Edit", input: { file_path: ".github/dependabot.yml" } }],
        answer:
          "All minor and patch npm updates now arrive as one grouped weekly PR on Mondays; majors still come one by one.",
      },
      {
        prompt: "commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "Dependency bumps, vite 6"' } }],
        answer: "Committed.",
      },
    ],
  },
  // 10: invoice list N+1 and index
  {
    id: "b3f0c2a1-0000-4000-8000-000000000010",
    startedAt: "2025-03-24T10:30:00Z",
    turns: [
      {
        prompt: "The invoice list page takes 4 seconds to load for the Acme account. Profile it.",
        tools: [
          { name: "Read", input: { file_path: "src/api/invoices.ts" } },
          { name: "Read", input: { file_path: "src/db/invoices_repo.ts" } },
          { name: "Bash", input: { command: "DEBUG=sql npm run dev" } },
        ],
        answer:
          "GET /api/invoices issues 1 query for the page of invoices and then 2 per invoice (customer and line items): 201 queries for 100 invoices. Classic N+1.",
      },
      {
        prompt: "Fix the N+1.",
        tools: [
          { name: "Edit", input: { file_path: "src/db/invoices_repo.ts" } },
          { name: "Edit", input: { file_path: "src/api/invoices.ts" } },
        ],
        answer:
          "listInvoices now joins customers and aggregates line items with json_agg in a single query. The endpoint is down to 1 query and ~180 ms.",
      },
      {
        prompt: "Still 180ms seems slow for 100 rows.",
        tools: [{
          name: "Bash",
          input: {
            command:
              "psql $DATABASE_URL -c 'EXPLAIN ANALYZE SELECT * FROM invoices WHERE account_id = 7 ORDER BY issued_at DESC LIMIT 100'",
          },
        }],
        answer:
          "EXPLAIN shows a sequential scan on invoices filtering by account_id and sorting by issued_at: 80k rows scanned for a 100-row page.",
      },
      {
        prompt: "Add an index.",
        tools: [{
          name: "Write",
          input: { file_path: "migrations/0010_invoices_account_index.sql" },
        }],
        answer:
          "The migration creates an index on invoices(account_id, issued_at DESC) CONCURRENTLY, marked '-- migrate:no-transaction'. Query time dropped to 9 ms.",
      },
      {
        prompt: "Does our migrator support that no-transaction marker?",
        tools: [
          { name: "Read", input: { file_path: "src/db/migrate.ts" } },
          { name: "Edit", input: { file_path: "src/db/migrate.ts" } },
        ],
        answer:
          "It didn't: it wrapped every file in BEGIN/COMMIT, and CREATE INDEX CONCURRENTLY cannot run inside a transaction block. The migrator now skips the transaction when a file's first line is '-- migrate:no-transaction'.",
      },
      {
        prompt: "thanks, commit",
        tools: [{
          name: "Bash",
          input: { command: 'git commit -am "Invoice list: one query, index"' },
        }],
        answer: "Committed.",
      },
    ],
  },
  // 11: refresh tokens, drafts
  {
    id: "b3f0c2a1-0000-4000-8000-000000000011",
    startedAt: "2025-03-26T15:05:00Z",
    turns: [
      {
        prompt:
          "Users get logged out every 15 minutes in the middle of editing an invoice and lose their draft.",
        tools: [
          { name: "Read", input: { file_path: "src/api/auth.ts" } },
          { name: "Read", input: { file_path: "src/ui/App.tsx" } },
        ],
        answer:
          "Access tokens expire after 15 minutes and the UI has no refresh flow: the first 401 redirects to /login and the form state is dropped.",
      },
      {
        prompt: "Add refresh tokens.",
        tools: [
          { name: "Edit", input: { file_path: "src/api/auth.ts" } },
          { name: "Write", input: { file_path: "migrations/0011_refresh_tokens.sql" } },
          { name: "Edit", input: { file_path: "src/db/schema.ts" } },
        ],
        answer:
          "Login now issues an opaque refresh token (30 days, httpOnly SameSite=Strict cookie) next to the 15-minute access token, and POST /api/auth/refresh rotates it. Tokens are stored hashed with revoked_at, so reuse of a rotated token revokes the whole family.",
      },
      {
        prompt: "And in the UI?",
        tools: [
          { name: "Write", input: { file_path: "src/ui/apiClient.ts" } },
          { name: "Edit", input: { file_path: "src/ui/App.tsx" } },
        ],
        answer:
          "The client retries a request once after calling /api/auth/refresh on a 401, with a single in-flight refresh shared by concurrent requests. Only if the refresh fails does App redirect to /login.",
      },
      {
        prompt: "Also keep drafts locally so nothing is lost even if the refresh fails.",
        tools: [{ name: "Edit", input: { file_path: "src/ui/InvoiceForm.tsx" } }],
        answer:
          "InvoiceForm autosaves the draft to localStorage under ledgerly:draft:<invoiceId> every 2 seconds (debounced) and offers to restore it when reopened.",
      },
      {
        prompt: "tests",
        tools: [
          { name: "Edit", input: { file_path: "test/auth.test.ts" } },
          { name: "Bash", input: { command: "npm test" } },
        ],
        answer: "Added tests for rotation and family revocation; 211 pass.",
      },
    ],
  },
  // 12: Stripe payments (compacted after turn 3)
  {
    id: "b3f0c2a1-0000-4000-8000-000000000012",
    startedAt: "2025-03-28T09:20:00Z",
    compactAfter: 3,
    turns: [
      {
        prompt:
          "Let's integrate Stripe so customers can pay invoices by card. Start with a payment link per invoice.",
        tools: [
          { name: "Bash", input: { command: "npm install stripe@14" } },
          { name: "Write", input: { file_path: "src/billing/stripe_client.ts" } },
          { name: "Edit", input: { file_path: "package.json" } },
        ],
        answer:
          "createPaymentLink(invoice) opens a Stripe Checkout Session in payment mode with the amount in cents and invoice_id in the metadata, using the stripe package v14.",
      },
      {
        prompt: "Handle the webhook when payment completes.",
        tools: [
          { name: "Write", input: { file_path: "src/api/payments.ts" } },
          { name: "Edit", input: { file_path: "src/api/server.ts" } },
        ],
        answer:
          "POST /api/stripe/webhook verifies the Stripe-Signature header with the endpoint secret and marks the invoice paid on checkout.session.completed. The route is mounted before the JSON body parser because signature verification needs the raw bytes.",
      },
      {
        prompt: "Stripe sends events more than once sometimes, right?",
        tools: [
          { name: "Write", input: { file_path: "migrations/0012_stripe_events.sql" } },
          { name: "Edit", input: { file_path: "src/api/payments.ts" } },
        ],
        answer:
          "Yes, delivery is at-least-once. A stripe_events table keyed by event id now records each event; the handler inserts the id with ON CONFLICT DO NOTHING and skips the event if no row was inserted.",
      },
      {
        prompt: "Test it with the Stripe CLI.",
        tools: [
          {
            name: "Bash",
            input: { command: "stripe listen --forward-to localhost:3000/api/stripe/webhook" },
          },
          { name: "Bash", input: { command: "stripe trigger checkout.session.completed" } },
        ],
        answer:
          "Verification failed at first because STRIPE_WEBHOOK_SECRET held the dashboard endpoint's secret instead of the whsec_ value printed by stripe listen. With that fixed, INV-2025-0042 was marked paid and the resend with the same event id was ignored.",
      },
      {
        prompt:
          "The webhook now fails in staging with 'No signatures found matching the expected signature for payload'. Why?",
        tools: [
          { name: "Read", input: { file_path: "src/api/payments.ts" } },
          { name: "Read", input: { file_path: "src/api/server.ts" } },
        ],
        answer:
          "A global body-size middleware added to server.ts yesterday reads and re-serialises JSON bodies, so the bytes Stripe signed no longer match what the handler verifies.",
      },
      {
        prompt: "Fix it so the webhook route is exempt.",
        tools: [
          { name: "Edit", input: { file_path: "src/api/server.ts" } },
          { name: "Edit", input: { file_path: "src/api/payments.ts" } },
        ],
        answer:
          "The body-limit middleware skips /api/stripe/webhook, and the handler verifies await c.req.arrayBuffer() directly. Staging deliveries succeed again.",
      },
      {
        prompt: "Are we still deduplicating events after this?",
        tools: [
          { name: "Read", input: { file_path: "src/api/payments.ts" } },
          { name: "Bash", input: { command: "stripe events resend evt_1PzQ8bLkdIwHu7ix" } },
        ],
        answer:
          "Yes, the stripe_events insert with ON CONFLICT DO NOTHING still runs before any side effect; the resent evt_1PzQ8bLkdIwHu7ix was ignored.",
      },
      {
        prompt: "commit everything",
        tools: [{
          name: "Bash",
          input: { command: 'git commit -am "Stripe payment links and webhook"' },
        }],
        answer: "Committed 'Stripe payment links and webhook'.",
      },
    ],
  },
  // 13: README, env validation
  {
    id: "b3f0c2a1-0000-4000-8000-000000000013",
    startedAt: "2025-03-31T11:45:00Z",
    turns: [
      {
        prompt:
          "Update the README so a new developer can get running; the setup steps are outdated.",
        tools: [
          { name: "Read", input: { file_path: "README.md" } },
          { name: "Read", input: { file_path: "docker-compose.yml" } },
          { name: "Read", input: { file_path: "package.json" } },
          { name: "Edit", input: { file_path: "README.md" } },
        ],
        answer:
          "It now lists: Node 20.11 via .nvmrc, docker compose up -d (Postgres on 5433, Redis on 6379), npm run migrate, ./scripts/seed.sh, npm run dev. Dropped the old instructions about installing Postgres 13 with Homebrew.",
      },
      {
        prompt: "Also document the env vars.",
        tools: [
          { name: "Read", input: { file_path: ".env.example" } },
          { name: "Grep", input: { pattern: "process.env", path: "src" } },
          { name: "Edit", input: { file_path: ".env.example" } },
          { name: "Edit", input: { file_path: "README.md" } },
        ],
        answer:
          "Found 11 variables read via process.env; STRIPE_WEBHOOK_SECRET and REDIS_URL were missing from .env.example. Added them, plus a table of all variables in the README.",
      },
      {
        prompt: "Validate the env at startup instead of failing deep inside a request.",
        tools: [
          { name: "Write", input: { file_path: "src/config.ts" } },
          { name: "Edit", input: { file_path: "src/api/server.ts" } },
        ],
        answer:
          "A zod schema parses process.env at startup and the server exits with a list of missing or malformed variables, e.g. 'DATABASE_URL: Required'. server.ts imports the parsed config instead of reading process.env directly.",
      },
      {
        prompt: "looks good, commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "Docs, env validation"' } }],
        answer: "Committed.",
      },
    ],
  },
  // 14: duplicate invoice numbers
  {
    id: "b3f0c2a1-0000-4000-8000-000000000014",
    startedAt: "2025-04-02T08:58:00Z",
    turns: [
      {
        prompt:
          "Our accountant noticed two invoices with the same number INV-2025-0107. That's not allowed in Germany.",
        tools: [
          { name: "Read", input: { file_path: "src/billing/numbering.ts" } },
          { name: "Grep", input: { pattern: "nextInvoiceNumber", path: "src" } },
        ],
        answer:
          "nextInvoiceNumber does SELECT max(number)+1 and then INSERT in separate statements, so two concurrent finalisations can read the same max.",
      },
      {
        prompt: "Make it safe under concurrency. Numbers must also be gapless.",
        tools: [
          {
            name: "Write",
            input: { file_path: "migrations/0013_invoice_number_counters.sql" },
          },
          { name: "Edit", input: { file_path: "src/billing/numbering.ts" } },
        ],
        answer:
          "An invoice_counters table (account_id, year, last_number) is bumped with UPDATE ... RETURNING inside the finalisation transaction: the row lock serialises concurrent finalisers and a rollback also rolls back the number. A Postgres sequence would leave gaps on rollback.",
      },
      {
        prompt: "Fix the existing duplicate.",
        tools: [{
          name: "Bash",
          input: {
            command:
              "psql $DATABASE_URL -c 'SELECT number, count(*) FROM invoices GROUP BY number HAVING count(*) > 1'",
          },
        }],
        answer:
          "Only INV-2025-0107 is duplicated (ids 8812 and 8815). I didn't renumber anything: that's a legal decision, and the accountant should cancel one of them with a credit note.",
      },
      {
        prompt: "Write a concurrency test.",
        tools: [
          { name: "Write", input: { file_path: "test/numbering.test.ts" } },
          { name: "Bash", input: { command: "npx vitest run test/numbering.test.ts" } },
        ],
        answer:
          "It finalises 50 invoices in parallel on 10 connections and asserts numbers 1..50 with no duplicates or gaps. Passes in 1.4 s.",
      },
      {
        prompt: "commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "Gapless invoice numbers"' } }],
        answer: "Committed.",
      },
    ],
  },
  // 15: Playwright e2e in CI
  {
    id: "b3f0c2a1-0000-4000-8000-000000000015",
    startedAt: "2025-04-04T14:10:00Z",
    turns: [
      {
        prompt: "Add Playwright end-to-end tests to CI for the invoice creation flow.",
        tools: [
          { name: "Write", input: { file_path: "test/e2e/create_invoice.spec.ts" } },
          { name: "Edit", input: { file_path: ".github/workflows/ci.yml" } },
          { name: "Edit", input: { file_path: "package.json" } },
        ],
        answer:
          "A new e2e job starts Postgres as a service container, runs migrations and the seed, builds the app and runs npx playwright test with chromium only. The spec creates a customer, adds two line items and checks the total.",
      },
      {
        prompt: "The e2e job fails with 'browserType.launch: Executable doesn't exist'.",
        tools: [
          { name: "Bash", input: { command: "gh run view --log-failed" } },
          { name: "Edit", input: { file_path: ".github/workflows/ci.yml" } },
        ],
        answer:
          "The browsers weren't installed on the runner; the job now runs 'npx playwright install --with-deps chromium' first, cached under ~/.cache/ms-playwright keyed by the Playwright version.",
      },
      {
        prompt: "Now it passes but took 9 minutes.",
        tools: [
          { name: "Read", input: { file_path: ".github/workflows/ci.yml" } },
          { name: "Edit", input: { file_path: ".github/workflows/ci.yml" } },
        ],
        answer:
          "Most of it was the apt install of browser dependencies (4 min) and building twice. The job now runs in the mcr.microsoft.com/playwright:v1.43.0-jammy container and reuses the build artifact: 2m50s.",
      },
      {
        prompt: "thanks",
        tools: [],
        answer:
          "You're welcome. The e2e job only runs on pull requests and main, not on every push to feature branches.",
      },
    ],
  },
  // 16: invoice emails to a background queue
  {
    id: "b3f0c2a1-0000-4000-8000-000000000016",
    startedAt: "2025-04-07T10:22:00Z",
    turns: [
      {
        prompt:
          "Sending invoice emails blocks the request for 2-3 seconds because we call SMTP inline. Move it to a background job.",
        tools: [
          { name: "Read", input: { file_path: "src/api/invoices.ts" } },
          { name: "Read", input: { file_path: "src/email/mailer.ts" } },
          { name: "Write", input: { file_path: "src/jobs/email_queue.ts" } },
        ],
        answer:
          "The queue uses pg-boss on the existing Postgres: POST /api/invoices/:id/send now enqueues a send-invoice job and returns 202, and a worker renders the PDF and sends it via nodemailer.",
      },
      {
        prompt: "Start the worker with the server?",
        tools: [
          { name: "Write", input: { file_path: "src/jobs/worker.ts" } },
          { name: "Edit", input: { file_path: "package.json" } },
          { name: "Edit", input: { file_path: "docker-compose.yml" } },
        ],
        answer:
          "Kept it separate: npm run worker starts the worker process, so a slow SMTP server can't starve API requests. In compose it's a second service using the same image.",
      },
      {
        prompt: "What if SMTP is down?",
        tools: [
          { name: "Read", input: { file_path: "src/jobs/email_queue.ts" } },
          { name: "Edit", input: { file_path: "src/jobs/email_queue.ts" } },
        ],
        answer:
          "pg-boss retries: configured retryLimit 8 with retryBackoff true, roughly an hour in total. After that the invoice's email_status becomes 'failed' and the dashboard shows a resend button.",
      },
      {
        prompt: "Add the email_status column.",
        tools: [{
          name: "Write",
          input: { file_path: "migrations/0014_invoice_email_status.sql" },
        }],
        answer:
          "email_status text with a check constraint for 'pending', 'sent' and 'failed' (default null), plus email_sent_at timestamptz.",
      },
      {
        prompt: "run the tests and commit",
        tools: [
          { name: "Bash", input: { command: "npm test" } },
          { name: "Bash", input: { command: 'git commit -am "Send invoice emails from a queue"' } },
        ],
        answer: "224 tests pass; committed.",
      },
    ],
  },
  // 17: review of the CSV import PR
  {
    id: "b3f0c2a1-0000-4000-8000-000000000017",
    startedAt: "2025-04-09T16:03:00Z",
    turns: [
      {
        prompt: "Review PR #58 (CSV import of customers) before I merge it.",
        tools: [
          { name: "Bash", input: { command: "gh pr diff 58" } },
          { name: "Read", input: { file_path: "src/api/customers.ts" } },
          { name: "Read", input: { file_path: "src/db/customers_repo.ts" } },
        ],
        answer:
          'Three issues: the parser splits on commas, so quoted fields like "Smith, Jones & Co" break; rows are inserted one by one without a transaction, so a failure at row 500 leaves 499 imported; and there\'s no limit on upload size.',
      },
      {
        prompt: "Fix those on the branch.",
        tools: [
          { name: "Bash", input: { command: "gh pr checkout 58" } },
          { name: "Edit", input: { file_path: "src/api/customers.ts" } },
          { name: "Edit", input: { file_path: "package.json" } },
        ],
        answer:
          "Switched to csv-parse with columns: true, wrapped the import in one transaction that rolls back on the first invalid row and reports its line number, and capped uploads at 5 MB / 10,000 rows.",
      },
      {
        prompt: "What about duplicate emails?",
        tools: [{ name: "Edit", input: { file_path: "src/db/customers_repo.ts" } }],
        answer:
          "Duplicates within the file are rejected with their line numbers; rows matching an existing customer's email update that customer (upsert via ON CONFLICT (account_id, email)) instead of creating a second one.",
      },
      {
        prompt: "Add a test fixture with tricky rows.",
        tools: [
          { name: "Write", input: { file_path: "test/fixtures/customers_tricky.csv" } },
          { name: "Write", input: { file_path: "test/customer_import.test.ts" } },
          { name: "Bash", input: { command: "npx vitest run test/customer_import.test.ts" } },
        ],
        answer:
          "The fixture has quoted commas, a BOM, CRLF line endings and a duplicate email. 9 tests pass.",
      },
      {
        prompt: "push",
        tools: [{ name: "Bash", input: { command: "git push" } }],
        answer: "Pushed to the PR branch; CI is running.",
      },
    ],
  },
  // 18: revenue chart months
  {
    id: "b3f0c2a1-0000-4000-8000-000000000018",
    startedAt: "2025-04-11T09:40:00Z",
    turns: [
      {
        prompt: "The revenue chart on the dashboard shows March revenue under February.",
        tools: [
          { name: "Read", input: { file_path: "src/ui/Dashboard.tsx" } },
          { name: "Read", input: { file_path: "src/api/reports.ts" } },
        ],
        answer:
          "The report groups by date_trunc('month', paid_at) in UTC and the chart labels each bucket with new Date(bucket).getMonth() in the browser's timezone, so midnight UTC on March 1 becomes February 28 in US timezones.",
      },
      {
        prompt: "Fix it.",
        tools: [
          { name: "Edit", input: { file_path: "src/api/reports.ts" } },
          { name: "Edit", input: { file_path: "src/ui/Dashboard.tsx" } },
        ],
        answer:
          "Month buckets come back as 'YYYY-MM' strings computed in the account's timezone, and the chart labels them without constructing a Date.",
      },
      {
        prompt: "Also the y axis shows 120000 for 1,200 EUR.",
        tools: [{ name: "Edit", input: { file_path: "src/ui/Dashboard.tsx" } }],
        answer:
          "Since money moved to cents the chart plotted raw minor units; it now divides via formatMoney and uses compact notation (1.2K €).",
      },
      {
        prompt: "Lint is complaining",
        tools: [
          { name: "Bash", input: { command: "npm run lint" } },
          { name: "Edit", input: { file_path: "src/ui/Dashboard.tsx" } },
        ],
        answer:
          "react-hooks/exhaustive-deps flagged a useMemo missing 'currency' in its dependency list; fixed. Lint is clean.",
      },
      {
        prompt: "commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "Revenue chart months"' } }],
        answer: "Committed.",
      },
    ],
  },
  // 19: recurring invoices generated twice (compacted after turn 2)
  {
    id: "b3f0c2a1-0000-4000-8000-000000000019",
    startedAt: "2025-04-14T07:55:00Z",
    compactAfter: 2,
    turns: [
      {
        prompt: "Some customers got their monthly recurring invoice twice on April 1st.",
        tools: [
          { name: "Read", input: { file_path: "src/jobs/scheduler.ts" } },
          { name: "Read", input: { file_path: "src/billing/recurring.ts" } },
          {
            name: "Bash",
            input: {
              command:
                "psql $DATABASE_URL -c \"SELECT schedule_id, count(*) FROM recurring_runs WHERE period_start = '2025-04-01' GROUP BY 1 HAVING count(*) > 1\"",
            },
          },
        ],
        answer:
          "Both API instances run the scheduler's 06:00 cron, and generateDueInvoices takes no lock, so each instance generated the April invoice for the same 37 schedules.",
      },
      {
        prompt: "Make sure only one instance runs it.",
        tools: [{ name: "Edit", input: { file_path: "src/jobs/scheduler.ts" } }],
        answer:
          "The cron job now takes pg_try_advisory_lock(4242) and skips the run if another instance holds it. Chose an advisory lock over a leader-election library since we already depend on Postgres.",
      },
      {
        prompt: "Also make generation itself idempotent, in case the lock ever fails.",
        tools: [
          {
            name: "Write",
            input: { file_path: "migrations/0015_recurring_runs_unique.sql" },
          },
          { name: "Edit", input: { file_path: "src/billing/recurring.ts" } },
        ],
        answer:
          "A unique constraint on recurring_runs(schedule_id, period_start), and the generator inserts the run row first with ON CONFLICT DO NOTHING, creating the invoice only if the row was inserted.",
      },
      {
        prompt:
          "The 0015 migration fails on staging: 'could not create unique index ... Key (schedule_id, period_start)=(88, 2025-04-01) is duplicated'.",
        tools: [
          { name: "Bash", input: { command: "psql $STAGING_DATABASE_URL -f /tmp/dups.sql" } },
          {
            name: "Edit",
            input: { file_path: "migrations/0015_recurring_runs_unique.sql" },
          },
        ],
        answer:
          "Staging still has the April 1st duplicates. The migration now deletes the later duplicate runs (keeping the lowest id) before adding the unique constraint; invoices aren't touched.",
      },
      {
        prompt: "What do we do about the duplicate invoices customers already received?",
        tools: [{
          name: "Bash",
          input: {
            command:
              "psql $DATABASE_URL -c \"\\copy (SELECT id, number, total FROM invoices WHERE recurring_run_id IN (SELECT id FROM dup_runs)) TO '/tmp/dup_invoices.csv' CSV\"",
          },
        }],
        answer:
          "37 duplicate invoices, all still 'sent', none paid. I'd void each with a credit note rather than delete them, so numbering stays gapless; the list is in /tmp/dup_invoices.csv.",
      },
      {
        prompt: "Write a script to void them.",
        tools: [
          { name: "Write", input: { file_path: "scripts/void_duplicates.sh" } },
          { name: "Bash", input: { command: "./scripts/void_duplicates.sh --dry-run" } },
        ],
        answer:
          "It reads the CSV and calls POST /api/invoices/:id/void with reason 'duplicate recurring run'; the dry run lists 37 invoices totalling 18,450.00 EUR.",
      },
      {
        prompt: "Will the advisory lock hold if the job runs longer than the cron interval?",
        tools: [{ name: "Read", input: { file_path: "src/jobs/scheduler.ts" } }],
        answer:
          "Yes: a session-level advisory lock is held until the job releases it or the connection closes, and the job uses a dedicated client from the pool rather than pool.query, so no other query can release it early.",
      },
    ],
  },
  // 20: redact logs
  {
    id: "b3f0c2a1-0000-4000-8000-000000000020",
    startedAt: "2025-04-16T13:30:00Z",
    turns: [
      {
        prompt:
          "We log full request bodies, including Stripe payloads and passwords on /login. Clean that up.",
        tools: [
          { name: "Read", input: { file_path: "src/logger.ts" } },
          { name: "Grep", input: { pattern: "c.req.json()", path: "src/api" } },
        ],
        answer:
          "The request logger in server.ts logs c.req.json() for every request, so /api/auth/login passwords and Stripe webhook payloads end up in the log stream.",
      },
      {
        prompt: "Use redaction.",
        tools: [
          { name: "Edit", input: { file_path: "src/logger.ts" } },
          { name: "Edit", input: { file_path: "src/api/server.ts" } },
        ],
        answer:
          "pino now redacts password, token, authorization, cookie and *.card.* paths with '[redacted]', and the request logger records method, path, status and duration only, no bodies.",
      },
      {
        prompt: "Can we purge the existing logs?",
        tools: [],
        answer:
          "That's on the provider side: Better Stack retention is 30 days, so old entries disappear by May 16; deleting them earlier needs their support. I'd also rotate any API keys that appear in them.",
      },
      {
        prompt: "Add a test that passwords never get logged.",
        tools: [
          { name: "Write", input: { file_path: "test/logger.test.ts" } },
          { name: "Bash", input: { command: "npx vitest run test/logger.test.ts" } },
        ],
        answer:
          "The test sends a login request through the middleware into an in-memory stream and asserts the password value doesn't appear. Passes.",
      },
    ],
  },
  // 21: Docker image size
  {
    id: "b3f0c2a1-0000-4000-8000-000000000021",
    startedAt: "2025-04-18T10:12:00Z",
    turns: [
      {
        prompt: "The production Docker image is 1.4 GB. Can we shrink it?",
        tools: [
          { name: "Read", input: { file_path: "Dockerfile" } },
          {
            name: "Bash",
            input: { command: "docker build -t ledgerly:size . && docker history ledgerly:size" },
          },
        ],
        answer:
          "It's based on node:20 (full Debian), copies node_modules including devDependencies and the Playwright browser cache, and keeps the TypeScript sources.",
      },
      {
        prompt: "Go ahead.",
        tools: [
          { name: "Edit", input: { file_path: "Dockerfile" } },
          { name: "Write", input: { file_path: ".dockerignore" } },
        ],
        answer:
          "Multi-stage build: the build stage on node:20-bookworm compiles with tsc and vite, the runtime stage on node:20-bookworm-slim runs npm ci --omit=dev and copies only dist/ and assets/fonts. .git, test and node_modules are ignored for the context. 212 MB now.",
      },
      {
        prompt: "PDF generation crashes in the new image.",
        tools: [
          {
            name: "Bash",
            input: { command: "docker run --rm ledgerly:slim node dist/jobs/worker.js" },
          },
          { name: "Edit", input: { file_path: "Dockerfile" } },
        ],
        answer:
          "pdfkit couldn't find the Inter font because assets/ was copied to /app/dist/assets; the COPY target is now /app/assets, which is where the renderer resolves it.",
      },
      {
        prompt: "Run as non-root too.",
        tools: [{ name: "Edit", input: { file_path: "Dockerfile" } }],
        answer: "Added USER node and a chown of /app; the container runs as uid 1000.",
      },
      {
        prompt: "commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "Slim multi-stage image"' } }],
        answer: "Committed.",
      },
    ],
  },
  // 22: split server.ts, unified errors
  {
    id: "b3f0c2a1-0000-4000-8000-000000000022",
    startedAt: "2025-04-21T09:05:00Z",
    turns: [
      {
        prompt: "server.ts is 900 lines. Split the routes into modules.",
        tools: [
          { name: "Read", input: { file_path: "src/api/server.ts" } },
          { name: "Edit", input: { file_path: "src/api/server.ts" } },
          { name: "Write", input: { file_path: "src/api/health.ts" } },
          { name: "Edit", input: { file_path: "src/api/invoices.ts" } },
          { name: "Edit", input: { file_path: "src/api/customers.ts" } },
        ],
        answer:
          "Route handlers moved into invoices.ts, customers.ts, payments.ts and a new health.ts, each exporting a Hono sub-app; server.ts only wires middleware and mounts them, 140 lines.",
      },
      {
        prompt: "Errors are handled differently in every route. Unify them.",
        tools: [
          { name: "Grep", input: { pattern: "c.json({ error", path: "src/api" } },
          { name: "Write", input: { file_path: "src/api/errors.ts" } },
          { name: "Edit", input: { file_path: "src/api/server.ts" } },
        ],
        answer:
          "ApiError(status, code, message) plus one onError handler rendering { error: { code, message } } replace 34 ad-hoc c.json({ error }) calls. Unknown exceptions become 500 'internal', with the stack only in logs.",
      },
      {
        prompt: "The frontend parses error.message strings. Did that break?",
        tools: [
          { name: "Grep", input: { pattern: "error.message", path: "src/ui" } },
          { name: "Edit", input: { file_path: "src/ui/apiClient.ts" } },
        ],
        answer:
          "Yes, the client read body.error as a string. It now reads body.error.message and exposes body.error.code, so InvoiceForm can show field errors for 'validation_failed'.",
      },
      {
        prompt: "run tests",
        tools: [
          { name: "Bash", input: { command: "npm test" } },
          { name: "Edit", input: { file_path: "test/invoices.test.ts" } },
        ],
        answer: "3 tests expected the old error shape; updated them. 241 pass.",
      },
      {
        prompt: "commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "Split routes, ApiError"' } }],
        answer: "Committed.",
      },
    ],
  },
  // 23: statement PDF performance
  {
    id: "b3f0c2a1-0000-4000-8000-000000000023",
    startedAt: "2025-04-23T15:48:00Z",
    turns: [
      {
        prompt:
          "Generating the monthly statement PDF for Acme (1,200 invoices) takes 40 s and the worker's memory goes to 1.5 GB.",
        tools: [
          { name: "Read", input: { file_path: "src/billing/statement_pdf.ts" } },
          {
            name: "Bash",
            input: { command: "node --heap-prof dist/jobs/statement_cli.js --account acme" },
          },
        ],
        answer:
          "All invoices with their line items are loaded into memory first, and the heap profile is dominated by 1,200 embedded font subsets: registerFont is called inside the per-invoice loop.",
      },
      {
        prompt: "Fix it.",
        tools: [
          { name: "Edit", input: { file_path: "src/billing/statement_pdf.ts" } },
          { name: "Edit", input: { file_path: "src/db/invoices_repo.ts" } },
        ],
        answer:
          "Fonts are registered once per document, and invoices stream from a server-side cursor in batches of 200 straight into the PDF. 1,200 invoices now take 3.1 s with a peak of 180 MB.",
      },
      {
        prompt: "Is the output still identical?",
        tools: [{ name: "Bash", input: { command: "node scripts/compare_pdf.js" } }],
        answer:
          "Rendered before and after for the seed account and compared the extracted text: identical except for the generation timestamp.",
      },
      {
        prompt: "commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "Stream statement PDFs"' } }],
        answer: "Committed.",
      },
    ],
  },
  // 24: ESLint flat config
  {
    id: "b3f0c2a1-0000-4000-8000-000000000024",
    startedAt: "2025-04-25T11:20:00Z",
    turns: [
      {
        prompt:
          "Migrate to the ESLint flat config; the old .eslintrc.json gives deprecation warnings since ESLint 9.",
        tools: [
          { name: "Read", input: { file_path: ".eslintrc.json" } },
          { name: "Write", input: { file_path: "eslint.config.js" } },
          { name: "Bash", input: { command: "rm .eslintrc.json" } },
          { name: "Edit", input: { file_path: "package.json" } },
        ],
        answer:
          "The flat config uses typescript-eslint's config helper with recommendedTypeChecked, react-hooks and our two custom rules; removed .eslintrc.json and the --ext flag from the lint script.",
      },
      {
        prompt: "Lint now reports 57 errors.",
        tools: [{ name: "Bash", input: { command: "npm run lint" } }],
        answer:
          "51 are @typescript-eslint/no-floating-promises in UI event handlers and 6 are no-misused-promises. These rules never fired before because the old config didn't use type information.",
      },
      {
        prompt: "Fix them properly, don't disable.",
        tools: [
          { name: "Edit", input: { file_path: "src/ui/InvoiceForm.tsx" } },
          { name: "Edit", input: { file_path: "src/ui/InvoiceList.tsx" } },
          { name: "Edit", input: { file_path: "src/ui/CustomerPicker.tsx" } },
          { name: "Edit", input: { file_path: "src/jobs/worker.ts" } },
        ],
        answer:
          "Handlers now call void submit() or wrap async work in a helper that reports failures to the toast. Two real bugs surfaced: the customer search dropdown swallowed search failures, and the worker didn't await boss.stop() on SIGTERM.",
      },
      {
        prompt: "CI too?",
        tools: [{ name: "Edit", input: { file_path: ".github/workflows/ci.yml" } }],
        answer:
          "The lint step ran 'eslint --ext .ts,.tsx src', which fails under flat config; it now runs npm run lint.",
      },
      {
        prompt: "commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "ESLint flat config"' } }],
        answer: "Committed.",
      },
    ],
  },
  // 25: exchange rates
  {
    id: "b3f0c2a1-0000-4000-8000-000000000025",
    startedAt: "2025-04-28T09:35:00Z",
    turns: [
      {
        prompt:
          "Customers want to invoice in USD but see revenue in EUR on the dashboard. We need exchange rates.",
        tools: [
          { name: "Read", input: { file_path: "src/billing/currency.ts" } },
          { name: "Grep", input: { pattern: "currency", path: "src/api/reports.ts" } },
        ],
        answer:
          "Invoices already store a currency, but the revenue report sums totals across currencies as if they were all EUR.",
      },
      {
        prompt: "Fetch daily rates from the ECB.",
        tools: [
          { name: "Write", input: { file_path: "src/billing/fx_rates.ts" } },
          { name: "Write", input: { file_path: "migrations/0016_fx_rates.sql" } },
          { name: "Edit", input: { file_path: "src/jobs/scheduler.ts" } },
        ],
        answer:
          "The scheduler fetches the ECB daily reference XML (eurofxref-daily.xml) at 16:30 CET and stores rates in a table (date, currency, rate_to_eur).",
      },
      {
        prompt: "Which rate do we use for an invoice, the issue date or the payment date?",
        tools: [
          { name: "Edit", input: { file_path: "src/billing/currency.ts" } },
          { name: "Edit", input: { file_path: "src/api/reports.ts" } },
        ],
        answer:
          "Our reports recognise revenue when issued, so the issue date's rate (falling back to the previous business day on weekends and ECB holidays), stored on the invoice as fx_rate_to_eur so reports don't shift when rates are re-fetched.",
      },
      {
        prompt: "Tests",
        tools: [
          { name: "Write", input: { file_path: "test/fx_rates.test.ts" } },
          { name: "Bash", input: { command: "npx vitest run test/fx_rates.test.ts" } },
        ],
        answer:
          "Tests parse a saved ECB XML fixture and check the weekend fallback (Saturday 2025-04-26 uses Friday's rate). 8 pass.",
      },
      {
        prompt: "commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "ECB exchange rates"' } }],
        answer: "Committed.",
      },
    ],
  },
  // 26: webhook signatures and replay (compacted after turn 2)
  {
    id: "b3f0c2a1-0000-4000-8000-000000000026",
    startedAt: "2025-04-30T14:00:00Z",
    compactAfter: 2,
    turns: [
      {
        prompt:
          "Customers asked how to verify that our webhooks really come from us. Add signatures.",
        tools: [
          { name: "Read", input: { file_path: "src/api/webhooks.ts" } },
          { name: "Edit", input: { file_path: "src/api/webhooks.ts" } },
        ],
        answer:
          "Each delivery now carries Ledgerly-Signature: t=<unix>,v1=<hex HMAC-SHA256 of 't.body'> with a per-endpoint secret, the same scheme as Stripe's so customers already know it.",
      },
      {
        prompt: "Store the per-endpoint secrets.",
        tools: [
          { name: "Write", input: { file_path: "migrations/0017_webhook_secrets.sql" } },
          { name: "Edit", input: { file_path: "src/db/schema.ts" } },
        ],
        answer:
          "webhook_endpoints gets a secret column, backfilled with gen_random_bytes(32) as hex for existing endpoints; the secret is shown once on creation in the UI.",
      },
      {
        prompt: "Document verification for customers.",
        tools: [{ name: "Write", input: { file_path: "docs/webhooks.md" } }],
        answer:
          "The guide explains the header format, a 5-minute timestamp tolerance against replays, and a Node verification snippet using crypto.timingSafeEqual.",
      },
      {
        prompt:
          "A customer says they get the same webhook up to five times when their endpoint is slow. Is that us?",
        tools: [
          { name: "Read", input: { file_path: "src/api/webhooks.ts" } },
          {
            name: "Bash",
            input: { command: "grep 'endpoint=ep_193' /var/log/ledgerly/worker.log | tail -20" },
          },
        ],
        answer:
          "Yes: deliveries time out after 5 s, and a timeout counts as a failed attempt even if the customer processed it, so a slow endpoint gets retried up to the 5-attempt cap.",
      },
      {
        prompt: "Should we increase the retry limit or the timeout?",
        tools: [{ name: "Edit", input: { file_path: "src/api/webhooks.ts" } }],
        answer:
          "Raised the timeout to 15 s and kept the 5-attempt cap; added a Ledgerly-Delivery-Id header that stays the same across retries so customers can deduplicate.",
      },
      {
        prompt: "Let customers replay a failed delivery from the UI.",
        tools: [
          { name: "Write", input: { file_path: "src/ui/WebhookLog.tsx" } },
          { name: "Edit", input: { file_path: "src/api/webhooks.ts" } },
        ],
        answer:
          "A delivery log lists deliveries with status, attempts and last_error; 'Replay' calls POST /api/webhooks/deliveries/:id/replay, which resets attempts and enqueues immediately.",
      },
      {
        prompt: "Does the replay keep the same signature timestamp?",
        tools: [{ name: "Read", input: { file_path: "src/api/webhooks.ts" } }],
        answer:
          "No, replays are re-signed with the current time, otherwise they'd fall outside the 5-minute tolerance documented in docs/webhooks.md. The delivery id stays the same.",
      },
      {
        prompt: "commit",
        tools: [{
          name: "Bash",
          input: { command: 'git commit -am "Signed webhooks, delivery log, replay"' },
        }],
        answer: "Committed.",
      },
    ],
  },
  // 27: connection pool exhaustion
  {
    id: "b3f0c2a1-0000-4000-8000-000000000027",
    startedAt: "2025-05-02T08:15:00Z",
    turns: [
      {
        prompt:
          "Production returned 500s for ten minutes last night with 'timeout exceeded when trying to connect'.",
        tools: [
          { name: "Read", input: { file_path: "src/db/pool.ts" } },
          {
            name: "Bash",
            input: { command: "grep -c 'timeout exceeded' /var/log/ledgerly/api-*.log" },
          },
        ],
        answer:
          "That's node-postgres' connectionTimeoutMillis error: all 10 pool clients were busy. At 02:00 the statement job for 40 accounts ran on the API instances, each job holding a client for its whole cursor.",
      },
      {
        prompt: "Fix it.",
        tools: [
          { name: "Edit", input: { file_path: "src/jobs/scheduler.ts" } },
          { name: "Edit", input: { file_path: "src/db/pool.ts" } },
        ],
        answer:
          "Statement generation runs only on the worker (its own pool of 5), the API pool goes from 10 to 20 clients, and every connection gets statement_timeout 30 s so a stuck query can't hold a client forever. With max_connections 100, two API instances plus the worker stay well below it.",
      },
      {
        prompt: "Add a metric so we see this coming.",
        tools: [{ name: "Edit", input: { file_path: "src/api/health.ts" } }],
        answer:
          "GET /health reports pool.totalCount, idleCount and waitingCount; Better Stack alerts when waitingCount stays above 0 for a minute.",
      },
      {
        prompt: "commit",
        tools: [{
          name: "Bash",
          input: { command: 'git commit -am "Separate pools, statement timeout"' },
        }],
        answer: "Committed.",
      },
    ],
  },
  // 28: accessibility
  {
    id: "b3f0c2a1-0000-4000-8000-000000000028",
    startedAt: "2025-05-05T13:25:00Z",
    turns: [
      {
        prompt:
          "Run an accessibility pass on the invoice form; a customer using a screen reader complained.",
        tools: [
          { name: "Read", input: { file_path: "src/ui/InvoiceForm.tsx" } },
          { name: "Read", input: { file_path: "src/ui/LineItemsTable.tsx" } },
          {
            name: "Bash",
            input: { command: "npx @axe-core/cli http://localhost:5173/invoices/new" },
          },
        ],
        answer:
          "axe reports 12 violations: the line item inputs have no labels, 'Add line' is a div with onClick, and validation errors aren't announced.",
      },
      {
        prompt: "Fix them.",
        tools: [
          { name: "Edit", input: { file_path: "src/ui/LineItemsTable.tsx" } },
          { name: "Edit", input: { file_path: "src/ui/InvoiceForm.tsx" } },
        ],
        answer:
          "Line item inputs carry aria-labels like 'Quantity, line 2', 'Add line' is a real button, and validation errors render in a role='alert' region linked with aria-describedby. axe reports 0 violations.",
      },
      {
        prompt: "The date picker too?",
        tools: [
          { name: "Read", input: { file_path: "src/ui/DatePicker.tsx" } },
          { name: "Edit", input: { file_path: "src/ui/DatePicker.tsx" } },
        ],
        answer:
          "It trapped focus in the calendar popup with no keyboard way out; Escape now closes it and returns focus to the input, and arrow keys move between days.",
      },
      {
        prompt: "Add axe to the e2e tests.",
        tools: [
          { name: "Edit", input: { file_path: "test/e2e/create_invoice.spec.ts" } },
          { name: "Edit", input: { file_path: "package.json" } },
        ],
        answer:
          "The spec runs @axe-core/playwright on the new-invoice page and fails on any serious or critical violation.",
      },
      {
        prompt: "thanks, commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "Accessible invoice form"' } }],
        answer: "Committed.",
      },
    ],
  },
  // 29: npm audit, ORDER BY injection
  {
    id: "b3f0c2a1-0000-4000-8000-000000000029",
    startedAt: "2025-05-07T10:50:00Z",
    turns: [
      {
        prompt: "npm audit reports a high severity issue. Take a look.",
        tools: [{ name: "Bash", input: { command: "npm audit" } }],
        answer:
          "It's in path-to-regexp 6.2.1 (ReDoS, GHSA-9wv6-86v2-598j), pulled in by an old version of @hono/node-server.",
      },
      {
        prompt: "Fix it.",
        tools: [
          { name: "Bash", input: { command: "npm install @hono/node-server@latest" } },
          { name: "Bash", input: { command: "npm audit" } },
          { name: "Read", input: { file_path: "package.json" } },
        ],
        answer:
          "Upgrading @hono/node-server to 1.13 pulls in path-to-regexp 6.3.0; npm audit reports 0 vulnerabilities.",
      },
      {
        prompt:
          "While we're at it, check the invoice search endpoint for injection. It builds SQL by hand.",
        tools: [
          { name: "Read", input: { file_path: "src/db/invoices_repo.ts" } },
          { name: "Grep", input: { pattern: "ORDER BY \\$\\{", path: "src" } },
        ],
        answer:
          "searchInvoices interpolates the sort column from the query string straight into ORDER BY, so ?sort=issued_at;DROP TABLE works. The search text itself is parameterised.",
      },
      {
        prompt: "Fix that.",
        tools: [
          { name: "Edit", input: { file_path: "src/db/invoices_repo.ts" } },
          { name: "Edit", input: { file_path: "test/invoices.test.ts" } },
        ],
        answer:
          "sort is validated against an allowlist (issued_at, due_at, total, number, customer) with direction asc or desc; anything else is a 400. Added a test with the injection payload.",
      },
      {
        prompt: "commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "Audit fix, sort allowlist"' } }],
        answer: "Committed.",
      },
    ],
  },
  // 30: partial payments
  {
    id: "b3f0c2a1-0000-4000-8000-000000000030",
    startedAt: "2025-05-09T09:10:00Z",
    turns: [
      {
        prompt: "Customers sometimes pay invoices in two installments. Support partial payments.",
        tools: [
          { name: "Read", input: { file_path: "src/api/payments.ts" } },
          { name: "Read", input: { file_path: "src/db/schema.ts" } },
          { name: "Write", input: { file_path: "migrations/0018_payments_table.sql" } },
        ],
        answer:
          "New payments table (invoice_id, amount_cents, paid_at, method, stripe_payment_intent); an invoice's paid amount is the sum of its payments, and its status is 'partially_paid' until the sum reaches the total.",
      },
      {
        prompt: "Update the Stripe webhook handling.",
        tools: [{ name: "Edit", input: { file_path: "src/api/payments.ts" } }],
        answer:
          "checkout.session.completed now inserts a payment row for amount_total instead of flipping the invoice to paid, and the status is recomputed in the same transaction.",
      },
      {
        prompt: "And the UI.",
        tools: [
          { name: "Edit", input: { file_path: "src/ui/InvoiceList.tsx" } },
          { name: "Write", input: { file_path: "src/ui/RecordPaymentDialog.tsx" } },
        ],
        answer:
          "The list shows 'Partially paid (€400 of €1,000)' with a progress bar, and a dialog lets users record bank transfers manually, defaulting the amount to the outstanding balance.",
      },
      {
        prompt: "What about overpayments?",
        tools: [{ name: "Edit", input: { file_path: "src/billing/totals.ts" } }],
        answer:
          "They are allowed and recorded; the invoice shows a negative balance as customer credit. Blocking them would reject real bank transfers we can't send back automatically.",
      },
      {
        prompt: "tests",
        tools: [
          { name: "Write", input: { file_path: "test/payments.test.ts" } },
          { name: "Bash", input: { command: "npx vitest run test/payments.test.ts" } },
        ],
        answer: "12 tests for partial, full and over-payment; all pass.",
      },
      {
        prompt: "commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "Partial payments"' } }],
        answer: "Committed.",
      },
    ],
  },
  // 31: release workflow
  {
    id: "b3f0c2a1-0000-4000-8000-000000000031",
    startedAt: "2025-05-12T15:30:00Z",
    turns: [
      {
        prompt:
          "Set up a release workflow that builds and pushes the Docker image when I tag a version.",
        tools: [{ name: "Write", input: { file_path: ".github/workflows/release.yml" } }],
        answer:
          "Triggers on tags v*.*.*, builds with docker/build-push-action using the GitHub Actions cache, and pushes ghcr.io/ledgerly/app:<version> and :latest.",
      },
      {
        prompt: "It fails with 'denied: installation not allowed to Create organization package'.",
        tools: [{ name: "Edit", input: { file_path: ".github/workflows/release.yml" } }],
        answer:
          "The job lacked the packages: write permission; it now declares permissions: { contents: read, packages: write }.",
      },
      {
        prompt: "Add a script to cut a release.",
        tools: [{ name: "Write", input: { file_path: "scripts/release.sh" } }],
        answer:
          "It checks the tree is clean and on main, bumps the version with npm version <patch|minor|major>, generates CHANGELOG.md entries from conventional commits since the last tag, and pushes the tag.",
      },
      {
        prompt: "Try it with a patch bump.",
        tools: [{ name: "Bash", input: { command: "./scripts/release.sh patch" } }],
        answer: "Tagged v0.9.1; the workflow built and pushed the image in 4m05s.",
      },
    ],
  },
  // 32: flaky webhook test
  {
    id: "b3f0c2a1-0000-4000-8000-000000000032",
    startedAt: "2025-05-14T11:05:00Z",
    turns: [
      {
        prompt: "test/webhooks.test.ts is flaky since last week: 'expected 5 calls, got 4'.",
        tools: [
          { name: "Read", input: { file_path: "test/webhooks.test.ts" } },
          {
            name: "Bash",
            input: {
              command:
                "for i in $(seq 50); do npx vitest run test/webhooks.test.ts || echo FAIL; done",
            },
          },
        ],
        answer:
          "Fails 3 out of 50 runs. The test advances fake timers by the nominal delay, but the ±20% jitter can push a retry past it, and the 15 s delivery timeout also uses setTimeout.",
      },
      {
        prompt: "Fix it deterministically.",
        tools: [
          { name: "Edit", input: { file_path: "src/api/webhooks.ts" } },
          { name: "Edit", input: { file_path: "test/webhooks.test.ts" } },
        ],
        answer:
          "deliverWebhook takes the random source as a parameter (default Math.random); the test injects () => 0.5 for zero jitter and advances with vi.runOnlyPendingTimersAsync. 200 runs, no failures.",
      },
      {
        prompt: "commit",
        tools: [{
          name: "Bash",
          input: { command: 'git commit -am "Deterministic backoff test"' },
        }],
        answer: "Committed.",
      },
    ],
  },
  // 33: reverse charge (compacted after turn 3)
  {
    id: "b3f0c2a1-0000-4000-8000-000000000033",
    startedAt: "2025-05-16T09:45:00Z",
    compactAfter: 3,
    turns: [
      {
        prompt:
          "Implement reverse charge for EU B2B customers: no VAT, and the required note on the invoice.",
        tools: [
          { name: "Read", input: { file_path: "src/billing/tax.ts" } },
          { name: "Edit", input: { file_path: "src/billing/tax.ts" } },
        ],
        answer:
          "taxFor returns rate 0 with reason 'reverse_charge' when the customer has a validated vat_id in an EU country other than the seller's. Domestic B2B customers still pay VAT.",
      },
      {
        prompt: "Validate VAT IDs against VIES.",
        tools: [
          { name: "Write", input: { file_path: "src/billing/vies.ts" } },
          { name: "Edit", input: { file_path: "src/api/customers.ts" } },
        ],
        answer:
          "A VAT ID is checked with the EU VIES REST API (checkVatNumber) when saved, storing vat_validated_at. VIES is often down, so on errors the customer stays unvalidated and we retry nightly instead of blocking the save.",
      },
      {
        prompt: "Put the reverse charge note on the PDF.",
        tools: [
          { name: "Read", input: { file_path: "src/billing/invoice_pdf.ts" } },
          { name: "Edit", input: { file_path: "src/billing/invoice_pdf.ts" } },
        ],
        answer:
          "Below the totals it prints 'Reverse charge: VAT to be accounted for by the recipient (Art. 196 Directive 2006/112/EC)' plus both VAT IDs whenever a line has reason reverse_charge.",
      },
      {
        prompt: "tests",
        tools: [
          { name: "Edit", input: { file_path: "test/tax.test.ts" } },
          { name: "Edit", input: { file_path: "test/invoice_pdf.test.ts" } },
          { name: "Bash", input: { command: "npm test" } },
        ],
        answer:
          "Added cases for a FR customer with a valid VAT ID (0%), DE B2B (19%) and an invalid VAT ID (country rate). 268 pass.",
      },
      {
        prompt:
          "The note shows box glyphs instead of letters for the French version of the invoice.",
        tools: [
          { name: "Read", input: { file_path: "src/billing/invoice_pdf.ts" } },
          {
            name: "Bash",
            input: {
              command:
                "curl -L -o assets/fonts/Inter-Bold.ttf https://github.com/rsms/inter/raw/master/docs/font-files/Inter-Bold.ttf",
            },
          },
          { name: "Edit", input: { file_path: "src/billing/invoice_pdf.ts" } },
        ],
        answer:
          "The note is drawn with doc.font('Helvetica-Bold') for emphasis, which lacks glyphs like 'é' and '’', the same trap as the customer names before. Registered Inter-Bold.ttf next to Inter-Regular and used it.",
      },
      {
        prompt: "Translate the note for FR, DE and NL customers.",
        tools: [
          { name: "Write", input: { file_path: "src/billing/legal_notes.ts" } },
          { name: "Edit", input: { file_path: "src/billing/invoice_pdf.ts" } },
        ],
        answer:
          "The reverse-charge note exists in en, de ('Steuerschuldnerschaft des Leistungsempfängers'), fr ('Autoliquidation') and nl ('Btw verlegd'), chosen by the customer's locale.",
      },
      {
        prompt: "What rate do we apply when a customer's VAT ID becomes invalid later?",
        tools: [{ name: "Read", input: { file_path: "src/billing/tax.ts" } }],
        answer:
          "Issued invoices keep their tax; new invoices use the customer's country rate from tax_rates as soon as the nightly VIES re-check marks the ID invalid.",
      },
      {
        prompt: "commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "Reverse charge"' } }],
        answer: "Committed.",
      },
    ],
  },
  // 34: backups
  {
    id: "b3f0c2a1-0000-4000-8000-000000000034",
    startedAt: "2025-05-19T14:35:00Z",
    turns: [
      {
        prompt: "Write a backup script for the production database that uploads to S3.",
        tools: [{ name: "Write", input: { file_path: "scripts/backup_db.sh" } }],
        answer:
          "It runs pg_dump -Fc, encrypts with age to the ops public key, uploads to s3://ledgerly-backups/daily/ and deletes local files. Retention (30 daily, 12 monthly) is an S3 lifecycle rule rather than script logic.",
      },
      {
        prompt: "Test a restore into the compose database.",
        tools: [
          { name: "Bash", input: { command: "./scripts/backup_db.sh --local /tmp/ledgerly.dump" } },
          {
            name: "Bash",
            input: {
              command:
                "pg_restore -d postgres://ledgerly:ledgerly@localhost:5433/ledgerly /tmp/ledgerly.dump",
            },
          },
        ],
        answer:
          "Restored the 48 MB dump into the local Postgres on 5433 in 41 s; row counts for invoices (81,204) and customers (2,317) match production.",
      },
      {
        prompt: "Run it nightly from CI?",
        tools: [{ name: "Write", input: { file_path: ".github/workflows/backup.yml" } }],
        answer:
          "Runs at 03:15 UTC with a read-only database role and OIDC to assume the AWS role, so no long-lived AWS keys are stored in GitHub.",
      },
      {
        prompt: "thanks",
        tools: [],
        answer:
          "You're welcome. Worth repeating the restore drill every quarter; I can turn it into a scheduled job if you want.",
      },
    ],
  },
  // 35: pagination, virtual list
  {
    id: "b3f0c2a1-0000-4000-8000-000000000035",
    startedAt: "2025-05-21T10:00:00Z",
    turns: [
      {
        prompt: "The invoice list renders all 1,200 invoices for Acme and scrolling is janky.",
        tools: [
          { name: "Read", input: { file_path: "src/ui/InvoiceList.tsx" } },
          { name: "Read", input: { file_path: "src/api/invoices.ts" } },
        ],
        answer:
          "The API ignores limit and returns every invoice, and the list renders 1,200 rows with a RecordPaymentDialog instance each.",
      },
      {
        prompt: "Add cursor pagination to the API.",
        tools: [
          { name: "Edit", input: { file_path: "src/api/invoices.ts" } },
          { name: "Edit", input: { file_path: "src/db/invoices_repo.ts" } },
        ],
        answer:
          "GET /api/invoices takes limit (default 50, max 200) and an opaque cursor encoding (issued_at, id); keyset pagination uses the (account_id, issued_at DESC) index from 0010.",
      },
      {
        prompt: "And infinite scroll in the UI.",
        tools: [
          { name: "Bash", input: { command: "npm install @tanstack/react-virtual" } },
          { name: "Edit", input: { file_path: "src/ui/InvoiceList.tsx" } },
          { name: "Edit", input: { file_path: "package.json" } },
        ],
        answer:
          "The list uses @tanstack/react-virtual and fetches the next page when the last 10 rows come into view; the payment dialog is rendered once and opened with the selected invoice.",
      },
      {
        prompt: "Filters for status and customer?",
        tools: [
          { name: "Edit", input: { file_path: "src/ui/InvoiceList.tsx" } },
          { name: "Edit", input: { file_path: "src/api/invoices.ts" } },
        ],
        answer:
          "Added status and customer_id query parameters; filters live in the URL search params so views can be shared.",
      },
      {
        prompt: "run the tests and commit",
        tools: [
          { name: "Bash", input: { command: "npm test" } },
          { name: "Bash", input: { command: 'git commit -am "Paginated invoice list"' } },
        ],
        answer: "All green; committed.",
      },
    ],
  },
  // 36: Node 22
  {
    id: "b3f0c2a1-0000-4000-8000-000000000036",
    startedAt: "2025-05-23T13:50:00Z",
    turns: [
      {
        prompt: "Node 20 goes into maintenance; upgrade us to Node 22.",
        tools: [
          { name: "Edit", input: { file_path: ".nvmrc" } },
          { name: "Edit", input: { file_path: "package.json" } },
          { name: "Edit", input: { file_path: "Dockerfile" } },
          { name: "Read", input: { file_path: ".github/workflows/ci.yml" } },
        ],
        answer:
          "Pinned 22.11, engines >=22.11, and the image uses node:22-bookworm-slim. The CI workflow reads the version from .nvmrc, so it follows.",
      },
      {
        prompt: "Tests fail with 'SyntaxError: Unexpected identifier 'assert''.",
        tools: [
          { name: "Grep", input: { pattern: "assert \\{", path: "src" } },
          { name: "Edit", input: { file_path: "src/email/templates.ts" } },
        ],
        answer:
          'Node 22 dropped import assertions: the email templates imported locales.json with assert { type: "json" }. Switched to the import attributes form, with { type: "json" }.',
      },
      {
        prompt: "Anything else?",
        tools: [
          { name: "Bash", input: { command: "npm test" } },
          { name: "Bash", input: { command: "docker build -t ledgerly:node22 ." } },
        ],
        answer:
          "All 281 tests pass and the image builds. The bcrypt native module needed a rebuild, which npm ci handles in the build stage.",
      },
      {
        prompt: "commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "Node 22"' } }],
        answer: "Committed.",
      },
    ],
  },
  // 37: credit notes
  {
    id: "b3f0c2a1-0000-4000-8000-000000000037",
    startedAt: "2025-05-26T09:25:00Z",
    turns: [
      {
        prompt: "We need proper credit notes instead of voiding invoices.",
        tools: [
          { name: "Read", input: { file_path: "src/billing/numbering.ts" } },
          { name: "Write", input: { file_path: "migrations/0019_credit_notes.sql" } },
        ],
        answer:
          "New credit_notes table (id, invoice_id, number, amount_cents, reason, issued_at) with its own number series 'CN-YYYY-NNNN'.",
      },
      {
        prompt: "Numbering?",
        tools: [{ name: "Edit", input: { file_path: "src/billing/numbering.ts" } }],
        answer:
          "The number allocator takes a series argument ('invoice' | 'credit_note') and uses the same invoice_counters row-lock scheme with a series column, so credit notes are gapless too.",
      },
      {
        prompt: "PDF for credit notes.",
        tools: [{ name: "Write", input: { file_path: "src/billing/credit_note_pdf.ts" } }],
        answer:
          "Reuses the invoice layout with the title 'Credit note', a reference to the original invoice number and negative amounts.",
      },
      {
        prompt: "Replace the void endpoint.",
        tools: [
          { name: "Edit", input: { file_path: "src/api/invoices.ts" } },
          { name: "Edit", input: { file_path: "scripts/void_duplicates.sh" } },
        ],
        answer:
          "POST /api/invoices/:id/void now issues a full credit note instead of setting status 'void', and the April duplicates script calls it the same way.",
      },
      {
        prompt: "tests + commit",
        tools: [
          { name: "Write", input: { file_path: "test/credit_notes.test.ts" } },
          { name: "Bash", input: { command: "npm test" } },
          { name: "Bash", input: { command: 'git commit -am "Credit notes"' } },
        ],
        answer: "7 new tests, all green; committed.",
      },
    ],
  },
  // 38: slow list again, 429s (compacted after turn 2)
  {
    id: "b3f0c2a1-0000-4000-8000-000000000038",
    startedAt: "2025-05-28T08:40:00Z",
    compactAfter: 2,
    turns: [
      {
        prompt:
          "The dashboard is slow again: GET /api/invoices p95 is 2.3 s since the pagination release.",
        tools: [
          {
            name: "Bash",
            input: {
              command:
                "psql $DATABASE_URL -c \"EXPLAIN ANALYZE SELECT id FROM invoices WHERE account_id = 7 AND status = 'sent' ORDER BY issued_at DESC, id DESC LIMIT 50\"",
            },
          },
          { name: "Read", input: { file_path: "src/db/invoices_repo.ts" } },
        ],
        answer:
          "With the status filter the planner no longer uses the (account_id, issued_at) index: it does a bitmap scan on status and sorts 60k rows. Filtering by customer_id is fine.",
      },
      {
        prompt: "Add an index that covers the status filter.",
        tools: [{
          name: "Write",
          input: { file_path: "migrations/0020_invoices_status_index.sql" },
        }],
        answer:
          "An index on invoices(account_id, status, issued_at DESC, id), built CONCURRENTLY with the no-transaction marker; p95 dropped to 120 ms.",
      },
      {
        prompt: "Also, some users get 429s while just scrolling the list.",
        tools: [{ name: "Read", input: { file_path: "src/api/rate_limit.ts" } }],
        answer:
          "The limiter buckets by API key and browser requests fall back to the account id, so all users of one account share a single bucket; infinite scroll plus the 10 s dashboard polling drain it quickly.",
      },
      {
        prompt: "Give browser sessions their own limit.",
        tools: [{ name: "Edit", input: { file_path: "src/api/rate_limit.ts" } }],
        answer:
          "Buckets are keyed by user id for JWT-authenticated requests (300/min, burst 50) and by API key for integrations (still 60/min, burst 20).",
      },
      {
        prompt: "Is Redis still the backing store for this?",
        tools: [
          { name: "Read", input: { file_path: "src/api/rate_limit.ts" } },
          { name: "Read", input: { file_path: "docker-compose.yml" } },
        ],
        answer:
          "Yes, the Lua token-bucket script on Redis, shared by all instances; the user buckets use the key prefix rl:user: so they don't collide with rl:key:.",
      },
      {
        prompt: "The 0020 migration timed out in staging.",
        tools: [
          { name: "Read", input: { file_path: "src/db/migrate.ts" } },
          { name: "Edit", input: { file_path: "src/db/migrate.ts" } },
        ],
        answer:
          "The migrator inherits the 30 s statement_timeout that every pooled connection has had since the pool fix, and CREATE INDEX CONCURRENTLY on staging takes ~70 s. No-transaction migrations now run with statement_timeout 0.",
      },
      {
        prompt: "commit",
        tools: [{
          name: "Bash",
          input: { command: 'git commit -am "Status index, per-user rate limits"' },
        }],
        answer: "Committed.",
      },
    ],
  },
  // 39: Stripe SDK major bump
  {
    id: "b3f0c2a1-0000-4000-8000-000000000039",
    startedAt: "2025-05-30T15:15:00Z",
    turns: [
      {
        prompt: "Bump stripe from 14 to 16; dependabot can't because it's a major.",
        tools: [
          { name: "Bash", input: { command: "npm install stripe@16" } },
          { name: "Bash", input: { command: "npx tsc --noEmit" } },
        ],
        answer:
          "tsc reports 4 errors: apiVersion '2023-10-16' is no longer accepted by the types, and Checkout.Session's payment_intent is now string | PaymentIntent | null.",
      },
      {
        prompt: "Fix them.",
        tools: [
          { name: "Edit", input: { file_path: "src/billing/stripe_client.ts" } },
          { name: "Edit", input: { file_path: "src/api/payments.ts" } },
        ],
        answer:
          "Pinned apiVersion '2024-06-20' and narrowed payment_intent with a typeof check. The checkout.session.completed payload is the same for the fields we read.",
      },
      {
        prompt: "Does the webhook endpoint in the Stripe dashboard need a new API version as well?",
        tools: [{ name: "Bash", input: { command: "stripe webhook_endpoints list" } }],
        answer:
          "Yes: events are rendered in the endpoint's own version, still 2023-10-16. After deploying, upgrade the endpoint's version in the dashboard so payloads match the types; I didn't touch production settings.",
      },
      {
        prompt: "run tests and commit",
        tools: [
          { name: "Bash", input: { command: "npm test" } },
          { name: "Bash", input: { command: 'git commit -am "stripe 16"' } },
        ],
        answer: "All pass; committed.",
      },
    ],
  },
  // 40: month-end schedules, nightly TZ matrix (compacted after turn 2)
  {
    id: "b3f0c2a1-0000-4000-8000-000000000040",
    startedAt: "2025-06-02T10:05:00Z",
    compactAfter: 2,
    turns: [
      {
        prompt: "A schedule set to the 31st skipped April entirely for one customer.",
        tools: [
          { name: "Read", input: { file_path: "src/billing/recurring.ts" } },
          {
            name: "Bash",
            input: {
              command:
                "psql $DATABASE_URL -c 'SELECT id, day_of_month, next_run_at FROM recurring_schedules WHERE id = 212'",
            },
          },
        ],
        answer:
          "Schedule 212 has day_of_month 31; the current code clamps correctly, but the row was created before the Temporal rewrite and still has next_run_at 2025-05-01 from the old code.",
      },
      {
        prompt: "Fix the data.",
        tools: [
          { name: "Write", input: { file_path: "scripts/recompute_next_run.ts" } },
          { name: "Bash", input: { command: "npx tsx scripts/recompute_next_run.ts --dry-run" } },
          { name: "Bash", input: { command: "npx tsx scripts/recompute_next_run.ts" } },
        ],
        answer:
          "Recalculated next_run_at for all 412 active schedules with the current nextRunDate: 9 differed, all month-end schedules created before March 14. Applied, and the customer's April invoice is issued.",
      },
      {
        prompt:
          "Run the unit tests every night under several time zones so this kind of bug shows up earlier.",
        tools: [{ name: "Edit", input: { file_path: ".github/workflows/ci.yml" } }],
        answer:
          "A nightly job now runs the unit tests under TZ=UTC, America/Los_Angeles, Europe/Berlin and Pacific/Auckland.",
      },
      {
        prompt: "Nightly run failed under Pacific/Auckland in test/recurring.test.ts.",
        tools: [
          { name: "Bash", input: { command: "gh run view --log-failed" } },
          { name: "Read", input: { file_path: "test/recurring.test.ts" } },
          { name: "Edit", input: { file_path: "test/recurring.test.ts" } },
        ],
        answer:
          "The new month-end case used new Date('2025-02-28') and compared with toDateString(), which is local; it now uses Temporal.PlainDate.from. The date math in recurring.ts itself was fine.",
      },
      {
        prompt: "Do we handle DST switches for schedules that run at 02:30 local time?",
        tools: [
          { name: "Read", input: { file_path: "src/billing/recurring.ts" } },
          { name: "Edit", input: { file_path: "test/recurring.test.ts" } },
        ],
        answer:
          "Yes: run dates are PlainDates converted with disambiguation 'later', so a 02:30 run on 30 March 2025 in Berlin, a time that doesn't exist, happens at 03:30 CEST. Added a test.",
      },
      {
        prompt: "commit",
        tools: [{ name: "Bash", input: { command: 'git commit -am "Nightly TZ matrix"' } }],
        answer: "Committed.",
      },
    ],
  },
];

export const QUESTIONS: CorpusQuestion[] = [
  // paraphrase
  {
    query: "which host port does the dev Postgres container listen on, and why not the default?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000001", turn: 1 }],
  },
  {
    query: "what sample records get loaded into a fresh development database?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000001", turn: 2 }],
  },
  {
    query: "which countries' VAT percentages did we store at first?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000002", turn: 0 }],
  },
  {
    query:
      "why did we postpone zero-rating intra-EU business clients instead of doing it right away?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000002", turn: 3 }],
  },
  {
    query: "why did dependency installation break on the build server with an engine mismatch?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000003", turn: 0 }],
  },
  {
    query: "which typeface did we embed so non-ASCII characters print correctly on invoices?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000004", turn: 1 }],
  },
  {
    query: "which library had wrongly been listed as a production dependency?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000004", turn: 3 }],
  },
  {
    query: "why did one client's server receive tens of thousands of calls over a weekend?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000005", turn: 0 }],
  },
  {
    query: "what is the wait between successive webhook redelivery tries?",
    kind: "paraphrase",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000005", turn: 1 },
      { session: "b3f0c2a1-0000-4000-8000-000000000005", turn: 3 },
    ],
  },
  {
    query: "under which zone setting did the subscription billing test break every single time?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000006", turn: 1 }],
  },
  {
    query: "what happens to a monthly schedule anchored on January 31st when February comes?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000006", turn: 2 }],
  },
  {
    query: "what does the API respond when a client exceeds its request budget?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000007", turn: 1 }],
  },
  {
    query: "why would a per-process throttle be wrong with two app servers?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000007", turn: 2 }],
  },
  {
    query: "why did a sum like 0.8999999 appear on the overview page?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000008", turn: 0 }],
  },
  {
    query: "which rounding mode do we use for VAT on each line item?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000008", turn: 1 }],
  },
  {
    query: "how are currencies like the yen with no fractional unit handled?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000008", turn: 3 }],
  },
  {
    query:
      "which automated upgrade pull requests needed a closer look instead of being merged in bulk?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000009", turn: 0 }],
  },
  {
    query: "what broke when moving the frontend bundler to its next major release?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000009", turn: 2 }],
  },
  {
    query: "why did the invoice overview fire about two hundred SQL statements per request?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000010", turn: 0 }],
  },
  {
    query: "why were people losing unsaved bills when their login timed out?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000011", turn: 0 }],
  },
  {
    query: "what happens if someone presents a refresh token that was already rotated?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000011", turn: 1 }],
  },
  {
    query: "where in the browser are unfinished invoice drafts kept?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000011", turn: 3 }],
  },
  {
    query: "which Stripe product lets a customer settle an invoice with a credit card?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000012", turn: 0 }],
  },
  {
    query: "what happens at boot when a required environment setting is absent?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000013", turn: 2 }],
  },
  {
    query: "how did two bills end up sharing one number?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000014", turn: 0 }],
  },
  {
    query: "why not rely on a database sequence for invoice numbers?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000014", turn: 1 }],
  },
  {
    query: "why didn't we renumber the clashing invoice ourselves?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000014", turn: 2 }],
  },
  {
    query: "why couldn't the browser tests launch chromium on the CI machine?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000015", turn: 1 }],
  },
  {
    query: "how did we get the end-to-end job below three minutes?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000015", turn: 2 }],
  },
  {
    query: "why does mail delivery run as its own process rather than inside the web server?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000016", turn: 1 }],
  },
  {
    query: "how long do we keep trying when the outgoing mail server is unreachable?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000016", turn: 2 }],
  },
  {
    query: "what problems did the review find in the spreadsheet upload pull request for clients?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000017", turn: 0 }],
  },
  {
    query: "what happens when an uploaded row has an email address we already know?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000017", turn: 2 }],
  },
  {
    query: "why did income get plotted under the preceding month on the graph?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000018", turn: 0 }],
  },
  {
    query:
      "how many customers received a second copy of their subscription bill, and what was proposed for those?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000019", turn: 4 }],
  },
  {
    query: "which fields are masked in the application's log output?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000020", turn: 1 }],
  },
  {
    query: "how small did the production container get, and by what means?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000021", turn: 1 }],
  },
  {
    query: "why couldn't document rendering locate its typeface inside the slimmed-down container?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000021", turn: 2 }],
  },
  {
    query: "how was the oversized HTTP entry point broken up?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000022", turn: 0 }],
  },
  {
    query: "what JSON shape do failed API responses have now?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000022", turn: 1 }],
  },
  {
    query: "why did the monthly account summary for our biggest client eat 1.5 GB of RAM?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000023", turn: 0 }],
  },
  {
    query: "how fast is the large customer's summary document after the optimisation?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000023", turn: 1 }],
  },
  {
    query: "why did the linter suddenly flag dozens of unhandled async calls?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000024", turn: 1 }],
  },
  {
    query: "which genuine bugs came to light while cleaning up the unawaited promise warnings?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000024", turn: 2 }],
  },
  {
    query: "which day's conversion rate applies to a bill in a foreign currency?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000025", turn: 2 }],
  },
  {
    query: "what conversion rate is used when an invoice is dated on a Saturday?",
    kind: "paraphrase",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000025", turn: 2 },
      { session: "b3f0c2a1-0000-4000-8000-000000000025", turn: 3 },
    ],
  },
  {
    query: "what did we do about clients getting repeated notifications from sluggish receivers?",
    kind: "paraphrase",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000026", turn: 3 },
      { session: "b3f0c2a1-0000-4000-8000-000000000026", turn: 4 },
    ],
  },
  {
    query: "what caused the nightly outage where the app could not get a database connection?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000027", turn: 0 }],
  },
  {
    query: "how can we spot connection saturation before it turns into errors?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000027", turn: 2 }],
  },
  {
    query: "what screen reader problems did the automated audit find on the billing form?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000028", turn: 0 }],
  },
  {
    query: "which vulnerable indirect package did the security audit flag?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000029", turn: 0 }],
  },
  {
    query: "where could an attacker smuggle SQL into the invoice lookup?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000029", turn: 2 }],
  },
  {
    query: "do we accept it when a client pays more than they owe?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000030", turn: 3 }],
  },
  {
    query: "why was pushing the container to GitHub's package registry refused?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000031", turn: 1 }],
  },
  {
    query: "why did the retry tests sometimes count only four deliveries?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000032", turn: 0 }],
  },
  {
    query: "how does the nightly dump job get AWS access without stored credentials?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000034", turn: 2 }],
  },
  {
    query: "how does paging through bills work in the REST endpoint?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000035", turn: 1 }],
  },
  {
    query: "what parse error showed up after moving to the newer JavaScript runtime?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000036", turn: 1 }],
  },
  {
    query: "why did the invoice endpoint get sluggish again after paging shipped?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000038", turn: 0 }],
  },
  {
    query: "what compile errors came up after the major upgrade of the payments SDK?",
    kind: "paraphrase",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000039", turn: 0 }],
  },

  // file
  {
    query: "what happened to 0007_add_tax_rates.sql?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000002", turn: 0 }],
  },
  {
    query: "why was invoice_pdf.ts changed?",
    kind: "file",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000004", turn: 1 },
      { session: "b3f0c2a1-0000-4000-8000-000000000033", turn: 2 },
      { session: "b3f0c2a1-0000-4000-8000-000000000033", turn: 4 },
      { session: "b3f0c2a1-0000-4000-8000-000000000033", turn: 5 },
    ],
  },
  {
    query: "history of docker-compose.yml",
    kind: "file",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000001", turn: 0 },
      { session: "b3f0c2a1-0000-4000-8000-000000000001", turn: 1 },
      { session: "b3f0c2a1-0000-4000-8000-000000000007", turn: 3 },
      { session: "b3f0c2a1-0000-4000-8000-000000000016", turn: 1 },
    ],
  },
  {
    query: "what does seed.sh do?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000001", turn: 2 }],
  },
  {
    query: "what was done to 0008_webhook_attempts.sql?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000005", turn: 2 }],
  },
  {
    query: "why was recurring.ts modified?",
    kind: "file",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000006", turn: 2 },
      { session: "b3f0c2a1-0000-4000-8000-000000000019", turn: 2 },
    ],
  },
  {
    query: "history of src/api/rate_limit.ts",
    kind: "file",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000007", turn: 1 },
      { session: "b3f0c2a1-0000-4000-8000-000000000007", turn: 3 },
      { session: "b3f0c2a1-0000-4000-8000-000000000038", turn: 3 },
    ],
  },
  {
    query: "what happened to 0009_amounts_in_cents.sql?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000008", turn: 2 }],
  },
  {
    query: "why was vite.config.ts touched?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000009", turn: 2 }],
  },
  {
    query: "history of dependabot.yml",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000009", turn: 3 }],
  },
  {
    query: "what was done to 0010_invoices_account_index.sql?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000010", turn: 3 }],
  },
  {
    query: "why was src/db/migrate.ts edited?",
    kind: "file",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000010", turn: 4 },
      { session: "b3f0c2a1-0000-4000-8000-000000000038", turn: 5 },
    ],
  },
  {
    query: "what happened to 0011_refresh_tokens.sql?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000011", turn: 1 }],
  },
  {
    query: "history of apiClient.ts",
    kind: "file",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000011", turn: 2 },
      { session: "b3f0c2a1-0000-4000-8000-000000000022", turn: 2 },
    ],
  },
  {
    query: "what was done to stripe_client.ts?",
    kind: "file",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000012", turn: 0 },
      { session: "b3f0c2a1-0000-4000-8000-000000000039", turn: 1 },
    ],
  },
  {
    query: "what happened to 0012_stripe_events.sql?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000012", turn: 2 }],
  },
  {
    query: "why does src/config.ts exist?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000013", turn: 2 }],
  },
  {
    query: "history of numbering.ts",
    kind: "file",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000014", turn: 1 },
      { session: "b3f0c2a1-0000-4000-8000-000000000037", turn: 1 },
    ],
  },
  {
    query: "why was create_invoice.spec.ts modified?",
    kind: "file",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000015", turn: 0 },
      { session: "b3f0c2a1-0000-4000-8000-000000000028", turn: 3 },
    ],
  },
  {
    query: "history of email_queue.ts",
    kind: "file",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000016", turn: 0 },
      { session: "b3f0c2a1-0000-4000-8000-000000000016", turn: 2 },
    ],
  },
  {
    query: "what happened to 0014_invoice_email_status.sql?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000016", turn: 3 }],
  },
  {
    query: "why was customers_repo.ts changed?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000017", turn: 2 }],
  },
  {
    query: "why was src/api/reports.ts modified?",
    kind: "file",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000018", turn: 1 },
      { session: "b3f0c2a1-0000-4000-8000-000000000025", turn: 2 },
    ],
  },
  {
    query: "what happened to 0015_recurring_runs_unique.sql?",
    kind: "file",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000019", turn: 2 },
      { session: "b3f0c2a1-0000-4000-8000-000000000019", turn: 3 },
    ],
  },
  {
    query: "history of void_duplicates.sh",
    kind: "file",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000019", turn: 5 },
      { session: "b3f0c2a1-0000-4000-8000-000000000037", turn: 3 },
    ],
  },
  {
    query: "why was logger.ts changed?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000020", turn: 1 }],
  },
  {
    query: "history of the Dockerfile",
    kind: "file",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000021", turn: 1 },
      { session: "b3f0c2a1-0000-4000-8000-000000000021", turn: 2 },
      { session: "b3f0c2a1-0000-4000-8000-000000000021", turn: 3 },
      { session: "b3f0c2a1-0000-4000-8000-000000000036", turn: 0 },
    ],
  },
  {
    query: "why does src/api/errors.ts exist?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000022", turn: 1 }],
  },
  {
    query: "what happened to statement_pdf.ts?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000023", turn: 1 }],
  },
  {
    query: "why was eslint.config.js written?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000024", turn: 0 }],
  },
  {
    query: "history of 0016_fx_rates.sql",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000025", turn: 1 }],
  },
  {
    query: "what happened to docs/webhooks.md?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000026", turn: 2 }],
  },
  {
    query: "why does WebhookLog.tsx exist?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000026", turn: 5 }],
  },
  {
    query: "why was src/db/pool.ts edited?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000027", turn: 1 }],
  },
  {
    query: "what happened to DatePicker.tsx?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000028", turn: 2 }],
  },
  {
    query: "what was done to 0018_payments_table.sql?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000030", turn: 0 }],
  },
  {
    query: "why does vies.ts exist?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000033", turn: 1 }],
  },
  {
    query: "what happened to backup_db.sh?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000034", turn: 0 }],
  },
  {
    query: "what happened to 0019_credit_notes.sql?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000037", turn: 0 }],
  },
  {
    query: "what was done to 0020_invoices_status_index.sql?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000038", turn: 1 }],
  },
  {
    query: "why does recompute_next_run.ts exist?",
    kind: "file",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000040", turn: 1 }],
  },
  {
    query: "history of ci.yml",
    kind: "file",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000003", turn: 1 },
      { session: "b3f0c2a1-0000-4000-8000-000000000015", turn: 0 },
      { session: "b3f0c2a1-0000-4000-8000-000000000015", turn: 1 },
      { session: "b3f0c2a1-0000-4000-8000-000000000015", turn: 2 },
      { session: "b3f0c2a1-0000-4000-8000-000000000024", turn: 3 },
      { session: "b3f0c2a1-0000-4000-8000-000000000040", turn: 2 },
    ],
  },

  // in-context
  {
    query: "why must the payment provider's callback route receive the unparsed request body?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000012", turn: 1 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000012",
  },
  {
    query: "how do we deduplicate Stripe events that are delivered more than once?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000012", turn: 2 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000012",
  },
  {
    query:
      "why did signature verification fail when forwarding events locally with the Stripe CLI?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000012", turn: 3 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000012",
  },
  {
    query: "what caused customers to be billed twice for the same month on April 1st?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000019", turn: 0 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000019",
  },
  {
    query:
      "which lock keeps both API instances from running the recurring invoice cron at the same time?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000019", turn: 1 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000019",
  },
  {
    query: "what makes recurring invoice generation safe to run twice for a period?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000019", turn: 2 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000019",
  },
  {
    query: "why do we stop retrying a webhook delivery after 5 attempts?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000005", turn: 1 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000026",
  },
  {
    query: "where is the number of webhook delivery attempts persisted?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000005", turn: 2 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000026",
  },
  {
    query: "how are our outgoing webhooks signed so receivers can verify them?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000026", turn: 0 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000026",
  },
  {
    query: "what timestamp tolerance should receivers allow when verifying our webhook signatures?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000026", turn: 2 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000026",
  },
  {
    query: "why were accented customer names garbled in generated invoice PDFs?",
    kind: "in-context",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000004", turn: 0 },
      { session: "b3f0c2a1-0000-4000-8000-000000000004", turn: 1 },
    ],
    asking: "b3f0c2a1-0000-4000-8000-000000000033",
  },
  {
    query: "when does a customer get zero VAT under reverse charge?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000033", turn: 0 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000033",
  },
  {
    query: "where do the per-country tax percentages come from?",
    kind: "in-context",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000002", turn: 0 },
      { session: "b3f0c2a1-0000-4000-8000-000000000002", turn: 1 },
    ],
    asking: "b3f0c2a1-0000-4000-8000-000000000033",
  },
  {
    query: "what happens to a VAT ID check when VIES is unavailable, and when is it checked again?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000033", turn: 1 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000033",
  },
  {
    query: "where does API throttling keep its counters so all instances share them?",
    kind: "in-context",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000007", turn: 3 },
      { session: "b3f0c2a1-0000-4000-8000-000000000007", turn: 2 },
    ],
    asking: "b3f0c2a1-0000-4000-8000-000000000038",
  },
  {
    query: "how many requests per minute may an API key make?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000007", turn: 1 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000038",
  },
  {
    query: "how can a migration build an index outside a transaction?",
    kind: "in-context",
    gold: [
      { session: "b3f0c2a1-0000-4000-8000-000000000010", turn: 4 },
      { session: "b3f0c2a1-0000-4000-8000-000000000010", turn: 3 },
    ],
    asking: "b3f0c2a1-0000-4000-8000-000000000038",
  },
  {
    query: "why do pooled database connections have a statement timeout?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000027", turn: 1 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000038",
  },
  {
    query: "why did the recurring schedule test fail on CI but not locally?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000006", turn: 1 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000040",
  },
  {
    query: "how are next run dates computed without local-time Date bugs?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000006", turn: 2 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000040",
  },
  {
    query: "which time zones does the nightly CI job run the unit tests under?",
    kind: "in-context",
    gold: [{ session: "b3f0c2a1-0000-4000-8000-000000000040", turn: 2 }],
    asking: "b3f0c2a1-0000-4000-8000-000000000040",
  },
];
