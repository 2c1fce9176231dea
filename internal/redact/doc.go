// Package redact sanitizes text and structured values before they reach a log
// line or a dead-letter payload, and it denies by default.
//
// Nothing secret may survive; everything else stays readable for the operator
// on call: item ids, UUIDs, request and trace ids, HTTP statuses, error
// classes, model names, timestamps, durations, hosts, URLs without their
// secrets, a system's own sentences (prose.go). Anything that is, holds or
// looks like a secret, a prompt or personal data becomes a marker naming its
// kind,
// "[REDACTED:openai-key]", "[REDACTED:token]", or, for content, Text:
// "[text 1234 bytes sha256:1a2b3c4d5e6f]".
//
// # Text
//
// String applies its layers in one pass, each to what the one before left,
// and repeats the pass until the text stops changing (at most 8 passes):
//
//  1. Structure wherever it stands (layers.go, markup.go). JSON and its kin
//     — Python and Ruby reprs, JavaScript literals, Go's %v of structs and
//     maps, documents cut short — are parsed where they stand in the text,
//     and the key rules below apply to their members, name/value pairs
//     ({"name": "Authorization", "value": …}) and (name, value) tuples
//     included. Quoted strings holding escapes are decoded, redacted one
//     level deeper and escaped back; JSON escaped into text without its
//     quotes is unescaped level by level. Content keys of YAML (with block
//     scalars), logfmt, env lines, queries and form bodies, content labels
//     in prose, and XML and SOAP elements and name/value attributes follow
//     the same rules (structurePatterns), and so do the fields of
//     toString() dumps (markup.go), PHP var_dump and print_r members
//     (dump.go), OpenTelemetry debug-exporter attributes, heading-like
//     labels of content in log lines ("Rendered prompt: …") with the lines
//     after them up to the next log record, and retrieval hits. The text
//     under a transcript's header (DSPy, AutoGen, LangGraph, CrewAI, a
//     prompt file's role keys) and a role's call literal (system('…'),
//     HumanMessage("…")) are content (transcript.go); a job's arguments
//     (args, kwargs of Celery, Sidekiq, RQ, …) lose what is free text and
//     keep identifiers (jobargs.go); a prompt passed as a SQL literal to a
//     function that asks a model for text is content (sqlcalls.go).
//  2. Decode before looking (decode.go). Percent- and form-encoded runs and
//     runs of \uXXXX, \xXX and &#NN; escapes are decoded and redacted one
//     level deeper; base64 and base64url blobs are decoded by the token rule
//     (4). A run whose decoded form held anything to redact is replaced
//     whole by the marker of the first kind found in it. At most 4 nested
//     encodings (maxDecodeDepth) and 64 KiB of decoded text a pass
//     (maxDecodedBytes); past the budget a run is not looked into and is
//     denied whole.
//  3. Known shapes (patterns.go, finders.go, ported.go): provider keys
//     (OpenAI, Anthropic, AWS, GitHub, Slack, Google, Stripe, webhook
//     secrets), JWTs, PEM private keys, Authorization, Cookie and
//     Set-Cookie — an Authorization value's credential slot after any
//     scheme, whatever its shape —, any "name: value", "name=value" or
//     "name": "value" whose name KeyKind calls secret, URL passwords,
//     secret query parameters, webhook URL secrets, key-shaped URL path
//     segments after the host or a credential's or intake's segment
//     (urlpath.go), command-line password and token flags and connect
//     strings (cli.go), credentials placed by position or definition —
//     #define, define(), a credentials call, config directives, password
//     files, IPsec secrets, a tool's config command, a password announced
//     on the line before it (positional.go); then every rule of gitleaks' default
//     configuration (gitleaks_rules.go, generated from the version go.mod
//     requires), run as gitleaks' detector runs them — only when a keyword
//     occurs, the secret group only, gitleaks' entropy floors and
//     allowlists — marking "[REDACTED:credential]". The tests hold the
//     table to gitleaks' own verdict (oracle_test.go).
//  4. Random-looking tokens (tokens.go). A token no rule named goes when the
//     label before it names a credential and it looks like one, or when —
//     long enough, outside an ARN, after no identifier's label — it is a
//     vendor's hex key shape or looks random: not a safe identifier shape
//     (digits, hex of one case — digests, UUIDs, trace ids —, an object id
//     with one of SafeIDPrefixes, an algorithm-tagged digest, an ISO basic
//     timestamp), mixed character classes, half of it and at least 12
//     characters explained by no word-like segment (commonBigrams), number,
//     hex piece or acronym, and a Shannon entropy above its length's
//     floor. A base64 blob of text is decoded first (2).
//  5. Personal data (patterns.go, pii.go): e-mail addresses (also written
//     "[at] … [dot]"), phone numbers (international, North American, and
//     any national format after a phone word, national numbers written
//     in groups after a trunk prefix or 00), IBANs checked mod 97, cards
//     checked by Luhn in their printed groupings, US SSNs, an E.164 number
//     as a URL path segment, values a database's error or log prints
//     beside a personal column — a key's values, an INSERT's literals or
//     bound values, a failing row (records.go).
//  6. Prose that is not a system's (prose.go): a segment of text between
//     the delimiters of code and data whose words are mostly outside the
//     vocabulary systems report failures in (generated by gen_syswords.go)
//     is content, each run of its words a Text marker; long CJK runs whose
//     character pairs failures do not use are too.
//
// Each pattern carries cheap pre-checks (literal triggers found in one pass
// over the text, a minimum run of digits), so that clean text rarely reaches
// a regular expression, and a ported rule's expression is compiled only when
// its keyword first occurs; the rules that meet almost every log line
// (key-value pairs, query parameters, URL passwords, tokens) are parsed by
// hand. RE2 cannot look around, so digit patterns check their neighbours in
// code: a number glued to letters or to a longer number (an id, a UUID, a
// decimal) is not PII.
//
// # Keys
//
// In structure the key decides first. KeyKind splits a key into words (snake,
// kebab and camel case) and calls it secret when a word is one of
// SecretWords, contains one of SecretFragments, or is "key" after one of
// KeyPrefixes or after any word but NonSecretKeyQualifiers and MetaWords
// (AZURE_OPENAI_KEY is secret, partition_key and max_keys are not) — unless
// a word after the secret names metadata about it (MetaWords: token_count,
// secret_arn, password_length) — or when its last words are one of
// PersonalKeys (first_name, date_of_birth, phone_number), whose values go
// when they could be that data — also before a format word
// (CleansedPhoneNumberE164), and a name whose owner is one of
// NameOwnerWords (holder_name, caller_name, customer.name). A secret key's
// value is replaced whole, whatever its shape; null, booleans and the empty
// string stay. A list under a personal key is judged element by element: a
// string or a number by the key's kind (so a field's validation error, "is
// invalid", stays), an object as a record under the key.
//
// A name, a display name, an address line, a number or a login is judged
// by its record (records.go): the key the object stands under (or the
// label before it, or a YAML mapping's parent, or an XML element's parent)
// and its members. A record whose key's last word is one of ThingWords (a
// queue, a model, a repository) keeps its names; one whose key holds
// PersonWords, or with a personal member (an e-mail address, a phone
// number) or a type naming a person, is a person's: its name goes (when
// only its key says so, when it reads as a person's full name), and so do
// its address lines. A number goes under a phone's key, beside an E.164
// number, or in an identity document's record.
//
// Values under TextKeys (prompt, messages, content, completion, text,
// system, instructions, query, parts, article, …) and under compound keys
// whose last word is a content word (TextKeySuffixes: system_prompt,
// gen_ai.prompt.0.content, additional_instructions), a turn's message
// (TurnWords: user_message) or a carrier of an earlier content word
// (CarrierWords: input.value) — with no DescriptorWords before it
// (error_text) — are replaced by Text;
// values under PayloadKeys (body, input, output) are walked when they are
// JSON, and replaced by Text when they are text or an array of plain
// strings. Values under an identifier's key (IDWords, IDNouns: request_id,
// x-amz-id-2, ETag) are not subject to the random-token rule. A name/value
// pair (NameKeys, ValueKeys) is judged by its name.
//
// # Safety
//
// Every function is safe for concurrent use, never panics, and accepts any
// bytes, invalid UTF-8 included; output is valid UTF-8 when the input is.
// String and JSON are idempotent. The exported tables are read without locks
// and partly indexed on first use: change them, if at all, before that.
package redact
