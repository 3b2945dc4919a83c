import assert from "node:assert/strict";
import { join } from "node:path";
import { redact, SECRET_PATTERNS } from "../../src/ingest/redact.ts";
import { OWN_SESSIONS, SHARED_TRANSCRIPTS, sharedOnly } from "./transcripts_parse_helper.ts";

/** A sample of each secret and what must remain of it. */
const SAMPLES: Record<string, Array<[string, string]>> = {
  "private key": [[
    "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\nok",
    "key:\n[REDACTED]\nok",
  ], ["-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA (cut off)", "[REDACTED]"]],
  "OpenAI or Anthropic key": [
    ["use sk-proj-abc123DEF456ghi789JKL012mno now", "use [REDACTED] now"],
    ["sk-ant-api03-Zx9_Qw8-Er7Ty6Ui5Op4As3Df2Gh1", "[REDACTED]"],
  ],
  "GitHub token": [
    ["ghp_0123456789abcdefghijABCDEFGHIJ012345", "[REDACTED]"],
    ["github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv", "[REDACTED]"],
  ],
  "GitLab token": [["glpat-AbCdEf0123456789xYzW", "[REDACTED]"]],
  "AWS access key id": [["aws id AKIAIOSFODNN7EXAMPLE.", "aws id [REDACTED]."]],
  "Slack token": [["xoxb-1234567890-abcdefghij", "[REDACTED]"]],
  "Google API key": [["AIzaSyA1234567890abcdefghijklmnopqrstuv", "[REDACTED]"]],
  "Stripe key": [["sk_live_4eC39HqLyjWDarjtT1zdp7dc", "[REDACTED]"]],
  "npm token": [["npm_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED]"]],
  "Hugging Face token": [["hf_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED]"]],
  "JSON web token": [[
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "[REDACTED]",
  ]],
  "bearer token": [[
    "curl -H 'Authorization: Bearer abc123def456ghi789jkl' x",
    "curl -H 'Authorization: Bearer [REDACTED]' x",
  ]],
  "password in a URL": [[
    "postgres://admin:s3cretPass@db.internal:5432/app",
    "postgres://admin:[REDACTED]@db.internal:5432/app",
  ]],
  "secret assignment": [
    ["DATABASE_PASSWORD=hunter22", "DATABASE_PASSWORD=[REDACTED]"],
    ["export STRIPE_SECRET='abc def'", "export STRIPE_SECRET=[REDACTED]"],
    ["API_KEY=xyz789 npm start", "API_KEY=[REDACTED] npm start"],
    ["GET /v1?user=1&access_token=abc123&x=2", "GET /v1?user=1&access_token=[REDACTED]&x=2"],
    ["deploy --token=abc123def", "deploy --token=[REDACTED]"],
  ],
  "quoted secret": [
    [`password = "correct-horse"`, `password = "[REDACTED]"`],
    [`{"api_key": "a1b2c3d4e5"}`, `{"api_key": "[REDACTED]"}`],
    [`client_secret: 'zzz999yyy'`, `client_secret: '[REDACTED]'`],
  ],
  "secret in prose": [
    [
      "connect as admin with the password Tr0ub4dor&3xyz, then check the logs",
      "connect as admin with the password [REDACTED], then check the logs",
    ],
    [
      "the AWS secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.",
      "the AWS secret [REDACTED].",
    ],
    ["the password for staging is hunter2024", "the password for staging is [REDACTED]"],
    ["my api key is 9f8e7d6c5b4a ok", "my api key is [REDACTED] ok"],
  ],
  "secret in YAML": [["db:\n  password: s3cr3t!x\n", "db:\n  password: [REDACTED]\n"]],
};

Deno.test("redact() replaces each kind of secret with [REDACTED]", () => {
  assert.deepEqual(Object.keys(SAMPLES).sort(), SECRET_PATTERNS.map((p) => p.name).sort());
  for (const [name, samples] of Object.entries(SAMPLES)) {
    for (const [input, expected] of samples) {
      const { text, redactions } = redact(input);
      assert.equal(text, expected, name);
      assert.ok(redactions >= 1, name);
    }
  }
});

Deno.test("redact() drops <private> spans, closed or not", () => {
  assert.deepEqual(redact("a <private>secret plan</private> b <PRIVATE>x\ny</PRIVATE> c"), {
    text: "a  b  c",
    redactions: 2,
  });
  assert.equal(redact("keep <private>never closed\nall of it").text, "keep ");
});

// Written raw with \$ and \` so that the template leaves them alone.
const ORDINARY_CODE = String.raw`
import { createHash } from "node:crypto";
const API_KEY = process.env.API_KEY;
const token = await getToken(user);
const password = hashPassword(input.password);
SECRET_KEY = os.environ["SECRET_KEY"]
export const tokenizer = "bert-base-uncased";
const sort_key = "created_at_timestamp";
const max_tokens = 4096; let PASSWORD_MIN_LENGTH = 12;
headers: { Authorization: \`Bearer \${token}\` },
  password: hashedPassword
  token: userToken,
password: \${DB_PASSWORD}
const url = "https://example.com/path?page=2&sort=desc";
const git = "git@github.com:owner/repo.git";
const id = "0f8fa3b1c2d4e5f60718293a4b5c6d7e8f901234"; // a commit sha
const uuid = "123e4567-e89b-12d3-a456-426614174000";
.sk-loading-spinner-component { display: none }
const task = "desk-organizer-component-library";
const digest = sha256("eyJ-not-a-jwt");
export PATH=/usr/local/bin:$PATH
for (const key of Object.keys(map)) console.log(key);
if (user.password !== confirm) throw new Error("password mismatch");
<input type="password" name="password" autocomplete="current-password">
token = tokenizer.encode(text2)
for token in tokens2: print(token)
`.replaceAll("\\$", "$").replaceAll("\\`", "`");

Deno.test("redact() leaves ordinary code untouched", () => {
  assert.deepEqual(redact(ORDINARY_CODE), { text: ORDINARY_CODE, redactions: 0 });
});

/**
 * Asserts that nothing in the messages (prose, commands, tool results) of
 * `dir`'s transcripts is redacted; returns those messages, one a line.
 */
async function assertNothingRedacted(dir: string): Promise<string> {
  const contents: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const text = await Deno.readTextFile(join(dir, entry.name));
    for (const line of text.split("\n").filter(Boolean)) {
      const content = JSON.stringify(JSON.parse(line).message?.content ?? "");
      assert.equal(redact(content).redactions, 0, `${entry.name}: ${redact(content).text}`);
      contents.push(content);
    }
  }
  return contents.join("\n");
}

Deno.test("redact() leaves the prose and commands of this project's Claude Code sessions untouched", async () => {
  const read = await assertNothingRedacted(OWN_SESSIONS);
  for (
    const nearMiss of ["session_token_ttl = 3600", "password_min_length = 12", "api_key_header"]
  ) {
    assert.ok(read.includes(nearMiss), `the sessions hold a name like a secret's: ${nearMiss}`);
  }
});

Deno.test({
  ...sharedOnly("redact() leaves the real fixture transcripts' prose and commands untouched"),
  fn: async () => {
    assert.ok((await assertNothingRedacted(SHARED_TRANSCRIPTS)).length > 0, "transcripts read");
  },
});
