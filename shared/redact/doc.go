// Package redact sanitizes text and structured values before they reach a log
// line or a dead-letter payload.
//
// Nothing secret may survive; everything else stays readable for the operator
// on call: item ids, UUIDs, request ids, HTTP statuses, error classes, model
// names, timestamps, durations, URLs without their secrets, ordinary prose.
//
// # Text
//
// String replaces every match of the Patterns table by a marker naming what
// was there, "[REDACTED:openai-key]", "[REDACTED:email]". The table finds:
//
//   - provider keys by their shape: OpenAI sk-/sk-proj-, Anthropic sk-ant-,
//     AWS access key ids (AKIA/ASIA), GitHub ghp_/gho_/ghu_/ghs_/ghr_ and
//     github_pat_, Slack xox?-, Google AIza, Stripe sk_live_/rk_live_/sk_test_,
//     webhook signing secrets whsec_;
//   - AWS secret access keys: after aws_secret_access_key, SecretAccessKey,
//     secret_key and kin, right after an access key id (also on the next
//     line), or standing alone as exactly 40 characters of the key's
//     alphabet mixing upper case, lower case and digits. Hex digests, git
//     object ids, padded base64 digests and paths survive;
//   - JWTs and PEM private key blocks, also with their newlines escaped as \n;
//   - credentials in context: Authorization (the scheme stays), Cookie and
//     Set-Cookie, and any "name: value", "name=value" or "name": "value"
//     whose name the key matcher calls secret (x-api-key, db_password, …);
//   - URL secrets: the password of user:pass@host, secret query parameters
//     (token, api_key, key, sig, code, X-Amz-Signature, …) and the secret
//     path of webhook URLs (Slack, Discord, Microsoft Teams, Zapier,
//     Telegram). Scheme, host, path prefix and parameter names stay;
//   - every other credential gitleaks knows: the rules of its default
//     configuration (gitleaks_rules.go, generated from the version go.mod
//     requires) run after the purpose-built ones, as gitleaks' detector runs
//     them — only when a keyword occurs, the secret group only, gitleaks'
//     entropy floors and allowlists — and mark "[REDACTED:credential]":
//     glpat-…, dop_v1_…, hf_…, xoxe-…, DATADOG_API_KEY=…, and so on. The
//     tests hold the whole table to gitleaks' own verdict (oracle_test.go);
//   - PII: email addresses, phone numbers, Luhn-valid card numbers, US SSNs.
//
// Each pattern carries cheap pre-checks (literal triggers found in one pass
// over the text, a minimum run of digits), so that clean text rarely reaches
// a regular expression, and a ported rule's expression is compiled only when
// its keyword first occurs; the rules that meet almost every log line
// (key-value pairs, query parameters, URL passwords) are parsed by hand. RE2 cannot look
// around, so digit patterns check their neighbours in code: a number glued to
// letters or to a longer number (an id, a UUID, a decimal) is not PII.
//
// # Keys
//
// In maps and JSON objects the key decides first. KeyKind splits a key into
// words (snake, kebab and camel case) and calls it secret when a word is one
// of SecretWords, contains one of SecretFragments, or is "key" after one of
// KeyPrefixes (api key, access key, private key) — unless a word after the
// secret names metadata about it (MetaWords: token_count, secret_arn,
// password_length). "max_tokens", "prompt_tokens" and "author" are not secret.
// The same matcher picks the keys of "key: value" pairs in text.
// A secret key's value is replaced whole, whatever its shape; null, booleans
// and the empty string stay, because they reveal nothing and tell the operator
// whether the credential was set at all.
//
// Values under TextKeys (prompt, messages, content, completion, text,
// system, article, …) are replaced by Text: their length and a short SHA-256,
// "[text 1234 bytes sha256:1a2b3c4d5e6f]", so that two dead letters can be
// compared without revealing what was sent. Values under PayloadKeys (body,
// input, output) are walked when they are JSON — an SQS body or a provider's
// error body keeps its ids and error codes — and hashed like text otherwise.
//
// # Safety
//
// Every function is safe for concurrent use, never panics, and accepts any
// bytes, invalid UTF-8 included; output is valid UTF-8 when the input is.
// String and JSON are idempotent. The exported tables are read without locks
// and partly indexed on first use: change them, if at all, before that.
package redact
