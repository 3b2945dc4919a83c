/** What replaces a secret. */
export const REDACTED = "[REDACTED]";

/** One kind of secret: its name (for tests and counts) and how to find it. */
export interface SecretPattern {
  name: string;
  pattern: RegExp;
  /** Rebuilds the match with the secret replaced; default: the whole match becomes `[REDACTED]`. */
  replace?: (match: string, ...groups: string[]) => string;
}

/** Names that hold a secret when they end with one of these words. */
const SECRET_NAME = String
  .raw`[A-Za-z0-9_.-]*?(?:password|passwd|pwd|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|token|credentials?)`;
/** A character of a secret written in prose: not a space, quote or bracket, nor punctuation that ends it. */
const PROSE_VALUE = String.raw`[^\s,;"'\x60()\[\]{}<>=]`;
/** A value that refers to a secret instead of holding one: `${X}`, `$X`, `{{x}}`, `<x>`. */
const REFERENCE = /^[$<{%]/;

const keepName = (_match: string, head: string) => `${head}${REDACTED}`;

/**
 * The secrets redacted before anything is stored. Each is tested on a
 * sample secret and on ordinary code that must pass untouched; token formats
 * require a digit where their real tokens always have one, so words such as
 * `sk-loading-spinner` are left alone.
 */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    name: "private key",
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  },
  {
    name: "OpenAI or Anthropic key",
    pattern: /\bsk-(?:ant-|proj-|svcacct-)?(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}/g,
  },
  {
    name: "GitHub token",
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g,
  },
  { name: "GitLab token", pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { name: "AWS access key id", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { name: "Slack token", pattern: /\bxox[abposr]-(?=[A-Za-z-]*\d)[A-Za-z0-9-]{10,}/g },
  { name: "Google API key", pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { name: "Stripe key", pattern: /\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { name: "npm token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: "Hugging Face token", pattern: /\bhf_(?=[A-Za-z]*\d)[A-Za-z0-9]{30,}/g },
  {
    name: "JSON web token",
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  },
  {
    name: "bearer token",
    pattern: /(\b(?:Bearer|Basic|Token)\s+)(?=[A-Za-z0-9._~+/-]*\d)[A-Za-z0-9._~+/-]{16,}=*/g,
    replace: keepName,
  },
  {
    name: "password in a URL",
    pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(?=@)/gi,
    replace: keepName,
  },
  {
    // `API_KEY=abc` in .env files, shell commands and query strings; code has spaces around `=`.
    name: "secret assignment",
    pattern: new RegExp(
      String.raw`((?:^|[\s?&;])(?:export\s+)?${SECRET_NAME}=)("[^"\n]*"|'[^'\n]*'|[^\s&"'<>;]+)`,
      "gim",
    ),
    replace: (match, head, value) =>
      REFERENCE.test(value.replace(/^["']/, "")) ? match : `${head}${REDACTED}`,
  },
  {
    // `password = "hunter22"`, `"api_key": "…"`: a literal, never a name or a call.
    name: "quoted secret",
    pattern: new RegExp(
      String.raw`(\b${SECRET_NAME}["']?\s*[:=]\s*)(["'])([^"'\s]{6,})\2`,
      "gi",
    ),
    replace: (match, head, quote, value) =>
      REFERENCE.test(value) ? match : `${head}${quote}${REDACTED}${quote}`,
  },
  {
    // `the password Tr0ub4dor&3xyz`, `secret is wJalr…`: typed in a session's prose. A word
    // counts only with a letter and a digit, 8 characters or more: "the password reset" is prose.
    name: "secret in prose",
    pattern: new RegExp(
      String.raw`(\b(?:password|passphrase|passwd|secret(?:\s+key)?|api\s+key|access\s+key|token)` +
        String.raw`\s+(?:for\s+[^\s,;]+\s+)?(?:(?:is|was|of|:)\s+)*)` +
        // The word itself: no call, index or assignment (`token = tokenizer.encode(text2)`).
        String
          .raw`(?=${PROSE_VALUE}*\d)(?=${PROSE_VALUE}*[A-Za-z])${PROSE_VALUE}{7,}[^\s,;"'\x60.()\[\]{}<>=]`,
      "gi",
    ),
    replace: keepName,
  },
  {
    // `password: hunter2x9` on a YAML line: not quoted (the rule above), not an identifier (code).
    name: "secret in YAML",
    pattern: new RegExp(String.raw`^(\s*${SECRET_NAME}:[ \t]+)([^\s,;]+)[ \t]*$`, "gim"),
    replace: (match, head, value) =>
      /^["'$<{%]/.test(value) || /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(value)
        ? match
        : `${head}${REDACTED}`,
  },
];

/** Text between `<private>` and `</private>` (or the end, if never closed) is dropped. */
const PRIVATE = /<private>[\s\S]*?(?:<\/private>|$)/gi;

/** Drops `<private>…</private>` spans and replaces every secret with `[REDACTED]`. */
export function redact(text: string): { text: string; redactions: number } {
  let dropped = 0;
  const kept = text.replace(PRIVATE, () => {
    dropped++;
    return "";
  });
  const secrets = redactSecrets(kept);
  return { text: secrets.text, redactions: dropped + secrets.redactions };
}

/** Replaces every secret with `[REDACTED]` (code's chunks: `<private>` means nothing there). */
export function redactSecrets(text: string): { text: string; redactions: number } {
  let redactions = 0;
  let out = text;
  for (const { pattern, replace } of SECRET_PATTERNS) {
    out = out.replace(pattern, (match: string, ...rest: unknown[]) => {
      const groups = rest.filter((value): value is string => typeof value === "string")
        .slice(0, -1);
      const replaced = replace ? replace(match, ...groups) : REDACTED;
      if (replaced !== match) redactions++;
      return replaced;
    });
  }
  return { text: out, redactions };
}

/** Drops `<private>…</private>` spans only (prompts, before mentions are read from them). */
export function dropPrivate(text: string): string {
  return text.replace(PRIVATE, "");
}
