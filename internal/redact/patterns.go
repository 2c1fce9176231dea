package redact

import (
	"regexp"
	"slices"
	"strings"
)

// Pattern is one rule of String: how to find candidates (a regular
// expression or a hand-written finder), how to vet them, the kind of marker
// they get, and cheap pre-checks that let clean text skip the rule.
type Pattern struct {
	// Kind names the marker a match is replaced by, unless Check says
	// otherwise.
	Kind Kind
	// Triggers are lowercase ASCII substrings of which at least one must
	// occur in the input, ignoring ASCII case, for the pattern to run at
	// all. No triggers means always run. They are a filter only; Regexp or
	// Find decides. String finds all triggers of the table in one pass,
	// indexed on first use: change Triggers before that.
	Triggers []string
	// MinDigits, when positive, makes Regexp search only the runs of at
	// least this many digits (separated by at most two of " -.()/", with a
	// '+' or '(' before the first); a match must lie within one run and be
	// at most 32 bytes long. Zero means Regexp searches the whole text.
	MinDigits int
	// AfterMarker makes the pattern run only when the text holds a marker
	// already: a rule that reads what stands beside a redacted value (the
	// name after an identity number that went). Triggers cannot say it, as
	// the trigger scan skips markers.
	AfterMarker bool
	// Regexp finds candidates. Every capturing group except one named "key"
	// marks a span to replace; a regexp without such groups replaces its
	// whole match. Groups that did not participate, empty spans and spans
	// that are already a marker are left alone. Use (?:…) for grouping.
	Regexp *regexp.Regexp
	// Find, when set, finds candidates instead of Regexp: it returns the
	// first candidate starting at or after from as six indices into s —
	// the match, its key (-1, -1 when there is none) and the span to
	// replace — or nil when there are no more. The rules that meet almost
	// every log line (key-value pairs, query parameters, URL passwords) are
	// parsed by hand: RE2 has no look-behind and finds no literal prefix in
	// them, so a regular expression would crawl over all the text.
	Find func(s string, from int) []int
	// Check, when set, vets each candidate: ok false keeps the text, and a
	// non-empty kind overrides Kind. It holds what a regular expression
	// cannot say: Luhn, SSN areas, digits glued to letters (RE2 has no
	// look-around), whether a key name is secret. After a rejected candidate
	// the search resumes after it — past its key for Find, one byte past its
	// start for digit patterns.
	Check func(m Match) (kind Kind, ok bool)

	// port, when set, is a rule ported from gitleaks (see portedRule): it
	// finds, vets and replaces its candidates itself.
	port *portedRule
	// positional asks String for the positions of the triggers, not only
	// whether they occur.
	positional bool
	// findIn, when set, is Find with the probe: the random-token rule
	// decodes base64 blobs at the depth and with the budget it describes,
	// and leaves the replacement of a blob that held a secret in
	// probe.blob.
	findIn func(in *probe, s string, from int) []int
	// tokens marks the random-token rule, which the values of identifier
	// keys skip.
	tokens bool
	// quotedPrintable marks the quoted-printable rule (its findIn is set
	// in init).
	quotedPrintable bool
	// textKind replaces a match's span with Text of it instead of a marker
	// (content under a prompt's key).
	textKind bool
}

// Match is a candidate offered to a Pattern's Check.
type Match struct {
	// Input is the whole text being redacted.
	Input string
	// Start and End bound the whole match in Input.
	Start, End int
	// Key is the text of the group named "key", or "".
	Key string
	// Secret is the text of the first span that would be replaced.
	Secret string
}

// kvSep is what stands between a key and its value: an optional closing
// quote (escaped or not), then ':', '=' or '=>'.
const kvSep = `(?:\\?["'])?\s*(?:=>|[:=])[ \t]*`

// Patterns is the table String applies, in order. Specific shapes come first
// (a JWT inside an Authorization header is marked "jwt"); context rules next
// (they skip values an earlier rule already marked); then the rules ported
// from gitleaks' default configuration, for every credential the ones before
// did not name; PII last, digits after everything that may contain digits.
var Patterns = slices.Concat(structurePatterns, secretPatterns, portedPatterns(), tokenPatterns, piiPatterns)

// tokenPatterns deny by default: a random-looking token no rule before
// named, or a credential-like value after a secret label in prose (see
// findToken).
var tokenPatterns = []Pattern{
	{
		Kind:   KindToken,
		Check:  checkToken,
		tokens: true,
	},
	{
		// A quoted password whatever its key: symbols among mixed
		// letters and digits (tokens.go).
		Kind:     KindToken,
		Triggers: []string{"#", "!", "$", "%", "&", "*", "@", "^", "?", "~"},
		Find:     findQuotedPassword,
		tokens:   true,
	},
}

// The token rule's finder decodes blobs, and the quoted-printable rule's
// decodes a body, which redacts what they hold with Patterns: they are set
// here, after Patterns exists.
func init() {
	for i := range Patterns {
		if Patterns[i].tokens && Patterns[i].Find == nil {
			Patterns[i].findIn = findToken
		}
		if Patterns[i].quotedPrintable {
			Patterns[i].findIn = findQuotedPrintable
		}
	}
}

// structurePatterns apply the key rules to structure in text that is not
// JSON (the structure layer handles JSON and its kin): content keys of
// YAML, logfmt, env lines, queries and forms become Text; XML elements and
// name/value attributes that name a credential lose their value.
var structurePatterns = []Pattern{
	{
		// A quoted-printable body, decoded and redacted one level deeper
		// (decode.go).
		Kind:            KindSecret,
		Triggers:        []string{"=3d"},
		quotedPrintable: true,
	},
	{
		// A turn of a prompt rendered with a chat template's tokens
		// (chattemplate.go), before the labels a
		// template may stand after ("prompt: [INST] …").
		Kind:     KindSecret,
		Triggers: []string{"<|im_start|>", "<|start_header_id|>", "<|header_start|>", "<|start|>", "[inst]", "<start_of_turn>", "<|user|>", "<|system|>", "<|assistant|>", "<｜user｜>", "<｜assistant｜>", "[/"},
		Find:     findChatTurn,
		textKind: true,
	},
	{
		// A password a sentence states: "Password for user X is Y"
		// (tokens.go).
		Kind:     KindPassword,
		Triggers: []string{"word is ", "word was ", "word for ", "word of "},
		Find:     findProsePassword,
	},
	{
		// A template's turn written as an element with a role attribute
		// (chattemplate.go): <message role="user">…</message>.
		Kind:     KindSecret,
		Triggers: []string{"role=\"", "role='"},
		Find:     findRoleTag,
		textKind: true,
	},
	{
		Kind:     KindSecret,
		Triggers: contentNeedles,
		Find:     findContentValue,
		textKind: true,
	},
	{
		// Free text under a key that says nothing of it (markup.go).
		Kind:     KindSecret,
		Triggers: []string{"=\"", "='", ": "},
		Find:     findProseValue,
		textKind: true,
	},
	{
		// A CEF extension's custom field named by its label (markup.go).
		Kind:     KindSecret,
		Triggers: []string{"label="},
		Find:     findLabelledField,
		textKind: true,
	},
	{
		// A query language's prompt in its program's source (transcript.go).
		Kind:     KindSecret,
		Triggers: []string{"argmax", "sample", "beam", "best_k"},
		Find:     findQuerySource,
		textKind: true,
	},
	{
		// Free text form-encoded in a form body or a query (markup.go).
		Kind:     KindSecret,
		Triggers: []string{"&"},
		Find:     findProseForm,
		textKind: true,
	},
	{
		// A content key's string in Go's %#v, PHP's var_export and EDN
		// (dumpstrings.go).
		Kind:     KindSecret,
		Triggers: []string{":\"", "=>", " :", " = \"", "#<", "password '", "password \"", "secret '", "token '", "passphrase '", "$ "},
		Find:     findDumpedContent,
		textKind: true,
	},
	{
		// A credential key's string in the same dumps.
		Kind:     KindSecret,
		Triggers: []string{":\"", "=>", " :", " = \"", "#<", "password '", "password \"", "secret '", "token '", "passphrase '"},
		Find:     findDumpedSecret,
		Check:    checkPHPSecret,
	},
	{
		Kind:     KindSecret,
		Triggers: []string{":\n", ":\r"},
		Find:     findLabelBlock,
		textKind: true,
	},
	{
		Kind:     KindSecret,
		Triggers: []string{"prompt", "message", "complet", "instruction", "transcript", "conversation", "history", "question", "query"},
		Find:     findProseContent,
		textKind: true,
	},
	{
		Kind:     KindSecret,
		Triggers: []string{"prompt", "message", "complet", "instruction", "transcript", "conversation", "history", "question", "query", "context", "result", "output", "response", "answer", "arg", "reply", "input"},
		Find:     findLabelLine,
		textKind: true,
	},
	{
		// The text under a transcript's header (transcript.go).
		Kind: KindSecret,
		Triggers: []string{"message", "[[ ## ", "---", "===", " (to ", "# ", "user:", "system:", "assistant:", "human:", "ai:", "developer:", "model:", "user (", "assistant (", "system (",
			"customer:", "agent:", "caller:", "visitor:", "advisor:", "operator:", "client:", "cliente:"},
		Find:     findTurnText,
		textKind: true,
	},
	{
		// An agent's step in its run log: a task's description, its output,
		// a final answer (transcript.go).
		Kind:     KindSecret,
		Triggers: []string{"starting task", "task output", "final answer", "task description", "task:", "task text", "task=", "plan:", "tool output", "tool result", "thought:", "answer:", "action input:"},
		Find:     findAgentStep,
		textKind: true,
	},
	{
		// A model's answer quoted back by a parser or a validator that
		// rejected it (parsefail.go).
		Kind:     KindSecret,
		Triggers: parseEchoTriggers,
		Find:     findParseEcho,
		textKind: true,
	},
	{
		// A payment's party named beside its account (namelabels.go), read
		// before the IBAN rule replaces the account.
		Kind:     KindPersonal,
		Triggers: accountTextWords,
		Find:     findAccountParty,
	},
	{
		// A person's name among a frame's local variables (namelabels.go).
		Kind:     KindPersonal,
		Triggers: localsTriggers,
		Find:     findLocalsName,
	},
	{
		// A SEPA purpose line's remittance text (namelabels.go).
		Kind:     KindPersonal,
		Triggers: []string{"svwz+"},
		Find:     findRemittanceText,
	},
	{
		// The answer a structured-output failure quotes after a word
		// naming it (parsefail.go).
		Kind:     KindSecret,
		Triggers: answerEchoTriggers,
		Find:     findAnswerEcho,
		textKind: true,
	},
	{
		// A question quoted in a query's WHERE clause (sqlcalls.go).
		Kind:     KindSecret,
		Triggers: []string{"where "},
		Find:     findWhereTextLiteral,
		textKind: true,
	},
	{
		// A parameter's value echoed by a request validator (parsefail.go).
		Kind:     KindSecret,
		Triggers: paramEchoTriggers,
		Find:     findParamEcho,
		textKind: true,
	},
	{
		// A framed turn in a log whose lines carry a level (transcript.go).
		Kind:     KindSecret,
		Triggers: []string{"===", "---"},
		Find:     findPrefixedTurn,
		textKind: true,
	},
	{
		// A panel's body whose title names a task (chattemplate.go).
		Kind:     KindSecret,
		Triggers: []string{"╭"},
		Find:     findBoxedContent,
		textKind: true,
	},
	{
		// A speaker's message quoted in prose (transcript.go).
		Kind:     KindSecret,
		Triggers: []string{"user ", "human ", "customer ", "bot ", "assistant ", "agent ", "caller "},
		Find:     findTurnQuoted,
		textKind: true,
	},
	{
		// The string literal of a role's call (transcript.go).
		Kind:     KindSecret,
		Triggers: []string{"('", "(\"", "( '", "( \""},
		Find:     findRoleCall,
		textKind: true,
	},
	{
		// A command line's prompt flag (cli.go).
		Kind:     KindSecret,
		Triggers: []string{" --"},
		Find:     findContentFlag,
		textKind: true,
	},
	{
		// A prompt's literal in a SQL call to a model (sqlcalls.go).
		Kind:     KindSecret,
		Triggers: []string{"complete(", "generate", "i_query(", "i_gen(", "cortex."},
		Find:     findModelCallLiteral,
		textKind: true,
	},
	{
		// A parser's error quoting its input (sqlcalls.go).
		Kind:     KindSecret,
		Triggers: []string{"value: ", "input: ", "string: "},
		Find:     findEchoedInput,
		textKind: true,
	},
	{
		// An INSERT's literals by their columns (sqlcalls.go).
		Kind:     KindSecret,
		Triggers: []string{"insert into "},
		Find:     findInsertContent,
		textKind: true,
	},
	{
		Kind:     KindSecret,
		Triggers: []string{"insert into "},
		Find:     findInsertCredential,
	},
	{
		// A message printed as a call with its role first (transcript.go).
		Kind:     KindSecret,
		Triggers: []string{"message("},
		Find:     findRoleArgCall,
		textKind: true,
	},
	{
		Kind:     KindSecret,
		Triggers: []string{"score", "similarity", "relevance", "distance"},
		Find:     findRetrievalHit,
		textKind: true,
	},
	{
		Kind:     KindSecret,
		Triggers: []string{"</"},
		Find:     findXMLText,
		textKind: true,
	},
	{
		Kind:     KindSecret,
		Triggers: []string{"</"},
		Find:     findXMLSecret,
		Check:    checkXMLSecret,
	},
	{
		Kind:     KindSecret,
		Triggers: []string{"value="},
		Find:     findXMLAttrPair,
	},
	{
		// PHP var_dump and print_r members (dump.go).
		Kind:     KindSecret,
		Triggers: []string{"]=>", "] =>"},
		Find:     findPHPSecret,
		Check:    checkPHPSecret,
	},
	{
		// A dumped name/value pair's value, by the key its name names.
		Kind:     KindSecret,
		Triggers: []string{"=>"},
		Find:     findDumpNamedValue,
		Check:    checkPHPSecret,
	},
	{
		Kind:     KindSecret,
		Triggers: []string{"]=>", "] =>"},
		Find:     findPHPText,
		textKind: true,
	},
}

// contentNeedles are lowercase fragments of every content key (TextKeys,
// TextKeySuffixes, input): the triggers of the content rule.
var contentNeedles = []string{
	"prompt", "message", "system", "complet", "content", "text", "article", "transcript",
	"instruction", "html", "markdown", "input", "query", "question", "document", "parts",
	"preamble", "history", "argument", "args", "utterance", "output", "msg", "template", "context", "generat", "speech",
	"variables",
}

// secretPatterns are the purpose-built rules for credentials.
var secretPatterns = []Pattern{
	{
		// A line of a passport's or identity card's machine-readable zone
		// (mrz.go), before the token rule reads its number line as a token.
		Kind:     KindPersonal,
		Triggers: []string{"<<"},
		Find:     findMRZ,
	},
	{
		Kind:     KindPrivateKey,
		Triggers: []string{"private key"},
		// A whole block, or — in truncated text — the BEGIN line and whatever
		// base64, header lines and (escaped) newlines follow it.
		Regexp: regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----` +
			`|-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\s:,._*-]|\\[nrt])*`),
	},
	{
		Kind:     KindJWT,
		Triggers: []string{"eyj"},
		Regexp:   regexp.MustCompile(`eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*`),
	},
	{
		Kind:     KindAnthropicKey,
		Triggers: []string{"sk-ant-"},
		Regexp:   regexp.MustCompile(`sk-ant-[A-Za-z0-9_*-]{16,}`),
		Check:    checkWordStart,
	},
	{
		// Legacy sk-…, sk-proj-, sk-svcacct-, sk-admin-; '*' so that the masked
		// form OpenAI echoes in errors goes too. 20 characters at least, so
		// "sk-learn" stays.
		Kind:     KindOpenAIKey,
		Triggers: []string{"sk-"},
		Regexp:   regexp.MustCompile(`sk-[A-Za-z0-9_*-]{20,}`),
		Check:    checkWordStart,
	},
	{
		Kind:     KindAWSAccessKey,
		Triggers: []string{"akia", "asia"},
		Regexp:   regexp.MustCompile(`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`),
	},
	{
		Kind:     KindGitHubToken,
		Triggers: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		Regexp:   regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}`),
		Check:    checkWordStart,
	},
	{
		Kind:     KindSlackToken,
		Triggers: []string{"xox", "xapp-"},
		Regexp:   regexp.MustCompile(`xox[a-z]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}`),
		Check:    checkWordStart,
	},
	{
		Kind:     KindGoogleKey,
		Triggers: []string{"aiza"},
		Regexp:   regexp.MustCompile(`AIza[0-9A-Za-z_-]{35}`),
	},
	{
		Kind:     KindStripeKey,
		Triggers: []string{"_live_", "_test_"},
		Regexp:   regexp.MustCompile(`\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}`),
	},
	{
		// A vendor's key that names its mode: rzp_live_…, FLWSECK_TEST-…; after Stripe's own
		// (tokens.go).
		Kind:     KindSecret,
		Triggers: []string{"_live_", "_test_"},
		Find:     findModeKey,
	},
	{
		// An object's client secret: its id, "_secret_" and a random part
		// (a payment or setup intent's pi_…_secret_…, seti_…_secret_…),
		// any vendor's. Whoever holds it can confirm the object.
		Kind:     KindSecret,
		Triggers: []string{"_secret_"},
		Regexp:   regexp.MustCompile(`\b[a-z]{2,8}_[A-Za-z0-9]{8,}_secret_[A-Za-z0-9]{8,}`),
	},
	{
		// A publish, subscribe or secret key of a messaging service: a
		// short prefix and a UUID (sub-c-…, pub-c-…, sec-c-…). A bare UUID
		// is an id; the prefix makes it a key.
		Kind:     KindSecret,
		Triggers: []string{"-c-"},
		Regexp:   regexp.MustCompile(`\b(?:sub|pub|sec)-c-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`),
	},
	{
		Kind:     KindWebhookSecret,
		Triggers: []string{"whsec_"},
		Regexp:   regexp.MustCompile(`whsec_[A-Za-z0-9+/=_-]{8,}`),
		Check:    checkWordStart,
	},
	{
		// PowerShell's plain-text SecureString: ConvertTo-SecureString
		// 'p…' -AsPlainText (finders.go).
		Kind:     KindPassword,
		Triggers: []string{"convertto-securestring"},
		Find:     findSecureString,
	},
	{
		// scheme://user:password@host: the user and host stay.
		Kind:     KindPassword,
		Triggers: []string{"://"},
		Find:     findURLPassword,
	},
	{
		// A key-shaped path segment after the host or a credential's or
		// an intake's segment (urlpath.go), in a URL or a request line.
		Kind:     KindURLSecret,
		Triggers: []string{"://", "get /", "post /", "put /", "patch /", "delete /", "head /"},
		Find:     findPathSecret,
	},
	{
		// A notification library's service URL (teams://, msteams://,
		// slack://, pover://, …): its ids and tokens (urlpath.go).
		Kind:     KindURLSecret,
		Triggers: []string{"://"},
		Find:     findNotifySecret,
	},
	{
		// An encrypted envelope's payload: an Ansible Vault's hex lines
		// after its $ANSIBLE_VAULT header (finders.go).
		Kind:     KindSecret,
		Triggers: []string{"$ansible_vault;"},
		Find:     findVaultPayload,
	},
	{
		Kind:     KindURLSecret,
		Triggers: []string{"hooks.slack.com"},
		Regexp:   regexp.MustCompile(`(?i)hooks\.slack\.com/(?:services|workflows|triggers|actions)/([^\s"'<>?#\\),;]+)`),
	},
	{
		// The webhook id stays; the token after it goes.
		Kind:     KindURLSecret,
		Triggers: []string{"discord"},
		Regexp:   regexp.MustCompile(`(?i)discord(?:app)?\.com/api/(?:v\d+/)?webhooks/\d+/([^\s"'<>?#/\\),;]+)`),
	},
	{
		Kind:     KindURLSecret,
		Triggers: []string{"office"},
		Regexp:   regexp.MustCompile(`(?i)(?:outlook\.office(?:365)?\.com|\.webhook\.office\.com)/webhook(?:b2)?/([^\s"'<>?#\\),;]+)`),
	},
	{
		Kind:     KindURLSecret,
		Triggers: []string{"hooks.zapier.com"},
		Regexp:   regexp.MustCompile(`(?i)hooks\.zapier\.com/hooks/catch/([^\s"'<>?#\\),;]+)`),
	},
	{
		Kind:     KindURLSecret,
		Triggers: []string{"telegram"},
		Regexp:   regexp.MustCompile(`(?i)api\.telegram\.org/(?:file/)?bot([^\s"'<>?#/\\),;]+)`),
	},
	{
		// Query and fragment parameters, also with & escaped as \u0026 (Go's
		// JSON encoder) or &amp; (HTML). The name stays.
		Kind:     KindURLSecret,
		Triggers: []string{"="},
		Find:     findParam,
	},
	{
		// A person's name or address line under a bracketed form key
		// (card[name]=…, billing_details%5Bname%5D=…) (records.go).
		Kind:     KindPersonal,
		Triggers: []string{"]=", "%5d="},
		Find:     findFormPersonParam,
		Check:    func(m Match) (Kind, bool) { return formKeyKind(m.Key), true },
	},
	{
		// AWS secret access keys by the name before them (any value of 40
		// characters of the alphabet)…
		Kind:     KindAWSSecret,
		Triggers: []string{"secret"},
		Regexp:   regexp.MustCompile(`(?i)(?:aws_?secret_?access_?key|secret_?access_?key|aws_?secret(?:_?key)?|secret_?key)` + kvSep + `(?:\\?["'])?([A-Za-z0-9/+]{40})`),
		Check:    checkAWSSecret,
	},
	{
		// …or right after an access key id (a CSV row, a config line), which
		// the rule above already marked.
		Kind:     KindAWSSecret,
		Triggers: []string{"akia", "asia"},
		Regexp:   regexp.MustCompile(`\[REDACTED:aws-access-key\](?:\\?["'])?[\s,:;=|]{1,6}(?:\\?["'])?([A-Za-z0-9/+]{40})`),
		Check:    checkAWSSecretNearID,
	},
	{
		// …or alone: exactly 40 characters of the key's alphabet standing on
		// their own, with upper case, lower case and a digit. Hex digests
		// (one case), git object ids, base64 digests (other lengths, '='
		// padding), UUIDs and paths (they start or end with '/', or sit in a
		// URL) stay.
		Kind: KindAWSSecret,
		Find: findBareAWSSecret,
	},
	{
		// A command line's password and token flags (cli.go).
		Kind:     KindPassword,
		Triggers: []string{" -", "\t-"},
		Find:     findCLIFlag,
	},
	{
		// Tools' own credential conventions (cli.go): Windows-style
		// password flags, a password fused to -p, a tool's credential
		// flags, a password by position, a NUL-separated argument vector.
		Kind:     KindPassword,
		Triggers: []string{" /p:", " /p ", " /rp ", " /pass:", " /password:", " /pwd:", "\t/p:"},
		Find:     findSlashFlag,
	},
	{
		Kind:     KindPassword,
		Triggers: []string{" -p", "'-p", "\"-p", "\t-p"},
		Find:     findFusedPassword,
	},
	{
		Kind:     KindPassword,
		Triggers: []string{"snmp", "ipmitool", "redis-cli", "mosquitto_"},
		Find:     findToolFlag,
	},
	{
		Kind:     KindPassword,
		Triggers: []string{"htpasswd ", "net user "},
		Find:     findPositionalPassword,
	},
	{
		Kind:     KindPassword,
		Triggers: []string{`\x00-`, `\0-`, "^@-", `\u0000-`, "\x00-"},
		Find:     findArgvFlag,
	},
	{
		// Credentials by the shape of what holds them (echoes.go).
		Kind:     KindPassword,
		Triggers: []string{`>>,<<"`, `>>, <<"`},
		Find:     findErlangBinaryCredential,
	},
	{
		Kind:     KindPrivateKey,
		Triggers: []string{"[0", "[1", "[2", "[3", "[4", "[5", "[6", "[7", "[8", "[9", "[ "},
		Find:     findByteArrayKey,
	},
	{
		Kind:     KindSecret,
		Triggers: []string{"key `", "token `", "secret `", "password `", "passphrase `", "credential `"},
		Find:     findEchoedSecret,
	},
	{
		// A Plaid access, processor or public token: its kind, its
		// environment and a UUID.
		Kind:     KindSecret,
		Triggers: []string{"-production-", "-sandbox-", "-development-"},
		Regexp:   regexp.MustCompile(`\b(?:access|processor|public)-(?:production|sandbox|development)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`),
	},
	{
		// A password hash dumped as pwdump and impacket's secretsdump write
		// one a line — user:rid:LM hash:NT hash::: —, which whoever holds
		// it can pass as the password.
		Kind:     KindPassword,
		Triggers: []string{":::"},
		Regexp:   regexp.MustCompile(`(?m)^[^\s:]+:\d+:([0-9a-fA-F]{32}):([0-9a-fA-F]{32}):::`),
	},
	{
		// A user:password echoed into base64 (cli.go).
		Kind:     KindPassword,
		Triggers: []string{"base64"},
		Find:     findEncodedPair,
	},
	{
		// A credential as an auth verb's positional argument (cli.go).
		Kind:     KindPassword,
		Triggers: []string{" auth", " login ", " token ", "\tauth", "\tlogin", "\ttoken"},
		Find:     findAuthArg,
	},
	{
		// Credentials by their position or definition (positional.go).
		Kind:     KindPassword,
		Triggers: []string{"#define", "efine(", "efine (", "setenv "},
		Find:     findDefinition,
		Check:    checkNamedSecret,
	},
	{
		Kind:     KindPassword,
		Triggers: []string{"credential", "auth(", "password("},
		Find:     findCredentialCall,
		Check:    checkNamedSecret,
	},
	{
		// A secret key's directive line, a password file's colon fields.
		Kind:     KindPassword,
		Triggers: []string{"pass", "secret", "token", "psk", ":"},
		Find:     findLineCredential,
		Check:    checkNamedSecret,
	},
	{
		// A connect, login or bind call's positional password.
		Kind:     KindPassword,
		Triggers: []string{"connect(", "__construct(", "connection(", "pdo(", "('", "(\"", "( '", "( \"", "bind(", "login(", "logon("},
		Find:     findConnectCall,
	},
	{
		// A password file's entry quoted after the file's name.
		Kind:     KindPassword,
		Triggers: []string{"pgpass"},
		Find:     findPgpassEntry,
	},
	{
		Kind:     KindSecret,
		Triggers: []string{" : ", "\n: "},
		Find:     findIPsecSecret,
	},
	{
		Kind:     KindSecret,
		Triggers: []string{"config "},
		Find:     findConfigCommand,
	},
	{
		// A credential an XML-RPC call passes by position (positional.go).
		Kind:     KindPassword,
		Triggers: []string{"<methodcall"},
		Find:     findXMLRPCCredential,
	},
	{
		// A protocol's login command (wire.go).
		Kind:     KindPassword,
		Triggers: []string{"login ", "pass ", "auth ", "auth\" \"", "login\" \"", "pass\" \""},
		Find:     findWireLogin,
	},
	{
		// A table's row: a secret's name in one cell, its value in the
		// next (wire.go).
		Kind:     KindSecret,
		Triggers: []string{"│", "┃", "║", "|"},
		Find:     findTableCredential,
		Check:    checkNamedSecret,
	},
	{
		Kind:     KindSecret,
		Triggers: []string{":\n", ":\r"},
		Find:     findAnnouncedSecret,
	},
	{
		// user/password@//host: a database connect string (cli.go).
		Kind:     KindPassword,
		Triggers: []string{"@"},
		Find:     findConnectString,
	},
	{
		// The MySQL and MariaDB clients take a password glued to -p.
		Kind:     KindPassword,
		Triggers: []string{"mysql", "mariadb"},
		Regexp:   regexp.MustCompile(`(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*?\s-p([^\s'"]+)`),
	},
	{
		// A standalone "Bearer …" or "Basic …" credential, in an error message
		// or a dumped request. The token must look random, so "Bearer
		// authentication failed" stays.
		Kind:     KindBearer,
		Triggers: []string{"bearer", "basic"},
		Regexp:   regexp.MustCompile(`(?i)\b(?:bearer|basic)\s+([A-Za-z0-9\-._~+/]{8,}=*)`),
		Check:    checkRandomToken,
	},
	{
		// name: value, name=value, "name": "value", name => value, where the
		// key matcher calls the name secret (x-api-key, db_password,
		// Authorization, Cookie, client_secret; "API key" with a space too).
		// An auth scheme before the value stays; a Cookie or Set-Cookie
		// value goes with all its "; "-separated pairs. See findKeyValue.
		Kind:     KindSecret,
		Triggers: keyValueTriggers,
		Find:     findKeyValue,
		Check:    checkKeyValue,
	},
}

// piiPatterns find personal data.
var piiPatterns = []Pattern{
	{
		// A name or an address line under a person's record in YAML,
		// logfmt or XML (see findTextRecord, findXMLRecord).
		Kind:     KindPersonal,
		Triggers: []string{"name", "line", "address", "login", "owner", "handle"},
		Find:     findTextRecord,
		Check:    checkTextRecord,
	},
	{
		// A value a database's error names by its column.
		Kind:     KindPersonal,
		Triggers: []string{"key (", "duplicate entry", "[parameters:", "insert into ", "failing row contains", "duplicate key value"},
		Find:     findDBRecord,
	},
	{
		Kind:     KindPersonal,
		Triggers: []string{"name>", "nm>", "line1>", "line2>", "address>", "line>", "strtnm>", "adrline>"},
		Find:     findXMLRecord,
		Check:    checkTextRecord,
	},
	{
		// Every IBAN holds a run of eight digits or more (in groups).
		Kind:      KindIBAN,
		MinDigits: 8,
		findIn:    findIBAN,
	},
	{
		// A field's value in redis-cli's numbered reply, by the field's
		// key (rediscli.go).
		Kind:     KindPersonal,
		Triggers: []string{") \""},
		Find:     findRedisFieldValue,
		Check: func(m Match) (Kind, bool) {
			kind, _ := KeyKind(m.Key)
			return kind, kind != ""
		},
	},
	{
		// A person's name after a label that says so (namelabels.go).
		Kind: KindPersonal,
		Triggers: append([]string{"employee", "holder", "kontoinhaber", "titulaire", "payer", "payee", "buyer", "beneficiary", "nome", "patient", "姓名", "氏名", "名前", "성명", "이름", "фио", "ФИО", "comprador", "destinatario", "recipient", "adresát", "bénéficiaire",
			"नाम", "ชื่อ", "שם", "الاسم", "имя", "име", "ім'я", "όνομα", "Όνομα", "nimi", "naam", "isim",
			"联系人", "收件人", "收货人", "持卡人", "聯絡人", "受取人", "担当者",
			"ontvanger", "empfänger", "destinataire", "mottaker", "mottagare", "vastaanottaja", "odbiorca",
			"cliente", "klant", "kunde", "kundin", "asiakas", "applicant", "solicitante",
			"nombre", "full name", "titular", "intestatario", "rekeninghouder", "kontohavare", "kontohaver", "tilinomistaja",
			"ad:", "ad=", "adı", "first name", "given name", "vorname", "prénom", "prenom", "imię", "jméno", "etunimi", "fornavn",
			"patiënt", "paciente", "ผู้รับ", "ผู้ส่ง",
			"სახელი", "გვარი", "Անուն", "անուն", "Ազգանուն", "ազգանուն", "பெயர்", "নাম", "પદવી", "નામ", "ਨਾਮ",
			"పేరు", "ಹೆಸರು", "പേര്", "නම", "ПІБ", "піб", "Ф.И.О.", "П.І.Б.",
			"მიმღები", "აბონენტი", "Ստացող", "ստացող", "பெறுநர்", "প্রাপক", "प्राप्तकर्ता"}, scriptNameLabels...),
		Find: findLabelledName,
	},
	{
		// A date of birth after its label, with or without a colon ("DOB
		// 1961-09-23", "geb. 03.04.1977", "born 12/03/1980"), and a
		// surname after its label with no colon (pii.go).
		Kind:     KindPersonal,
		Triggers: append([]string{"dob", "d.o.b", "of birth", "birth date", "born", "geb", "nacimiento", "nascimento", "urodzenia", "nascita", "geboorte", "naissance", "surname", "last name", "family name", "nachname", "apellido", "achternaam", "cognome", "nazwisko"}, scriptBirthLabels...),
		Find:     findBareLabelledPersonal,
	},
	{
		// A person's name right before an identity number's label, a birth
		// or a residence (namelabels.go).
		Kind:     KindPersonal,
		Triggers: recordLabels,
		Find:     findNameBeforeRecord,
	},
	{
		// A street address in prose, by its street word (addresses.go).
		Kind:     KindPersonal,
		Triggers: streetTriggers,
		Find:     findStreetAddress,
	},
	{
		// A Korean road name address (addresses.go).
		Kind:     KindPersonal,
		Triggers: koreanRoadTriggers,
		Find:     findKoreanRoadAddress,
	},
	{
		// A Korean or Japanese name before its honorific (names.go).
		Kind:     KindPersonal,
		Triggers: nameHonorificTriggers,
		Find:     findNameBeforeHonorific,
	},
	{
		// A print_r member's name or address line judged by its record
		// (dump.go).
		Kind:     KindPersonal,
		Triggers: []string{"] =>"},
		Find:     findPHPRecordMember,
		Check:    checkTextRecord,
	},
	{
		// A patient's fields of an HL7 v2 message (hl7.go).
		Kind:     KindPersonal,
		Triggers: []string{"pid|", "nk1|"},
		Find:     findHL7Field,
	},
	{
		// A mailbox's display name: `Aino Virtanen <aino@…>` (namelabels.go).
		Kind:     KindPersonal,
		Triggers: []string{"@"},
		Find:     findMailboxName,
	},
	{
		// A personal key of CJK text before its full-width colon
		// (interchange.go).
		Kind:     KindPersonal,
		Triggers: []string{"："},
		Find:     findFullWidthKeyValue,
		Check:    checkFullWidthKey,
	},
	{
		// An LDIF entry's person attributes (interchange.go).
		Kind:     KindPersonal,
		Triggers: []string{"dn:"},
		Find:     findLDIF,
	},
	{
		// An iCalendar attendee's or organizer's common name.
		Kind:     KindPersonal,
		Triggers: []string{";cn="},
		Find:     findICalName,
	},
	{
		// A DICOM dump's person names and patient fields.
		Kind:     KindPersonal,
		Triggers: []string{"(0010,", "pn [", "pn: "},
		Find:     findDICOM,
	},
	{
		// An X12 person's name, address, birth date, phones and numbers.
		Kind:     KindPersonal,
		Triggers: []string{"nm1*", "n3*", "dmg*", "~per*", "~ref*"},
		Find:     findX12,
	},
	{
		// A SWIFT MT payment's ordering customer and beneficiary.
		Kind:     KindPersonal,
		Triggers: []string{":50k:", ":50f:", ":59:", ":59f:", ":50h:"},
		Find:     findSwiftParty,
	},
	{
		// A vCard's name, address, phone and e-mail lines (vcard.go).
		Kind:     KindPersonal,
		Triggers: []string{"begin:vcard"},
		Find:     findVCard,
	},
	{
		// National identity numbers by their check digits in their written
		// shapes, or under a label naming one (idnumbers.go).
		Kind:      KindNationalID,
		MinDigits: 6,
		findIn:    findNationalID,
	},
	{
		// The same with a label naming one, when one occurs.
		Kind:      KindNationalID,
		MinDigits: 6,
		Triggers:  append(append([]string{}, idLabels...), idKeyLabels...),
		findIn:    findLabelledNationalID,
	},
	{
		// Numbers that name one person by their issuers' published shapes
		// (docnumbers.go): a Medicare Beneficiary Identifier, a UK driving
		// licence number, Mongolia's register number, Myanmar's NRC.
		Kind: KindPersonal,
		Find: findMBI,
	},
	{
		Kind: KindPersonal,
		Find: findUKDrivingLicence,
	},
	{
		Kind:      KindNationalID,
		MinDigits: 8,
		Find:      findMongolianRegister,
	},
	{
		Kind:     KindNationalID,
		Triggers: nrcTriggers,
		Find:     findMyanmarNRC,
	},
	{
		// An identity number of letters and digits under its label
		// (idnumbers.go).
		Kind:     KindNationalID,
		Triggers: append(append([]string{}, alnumIDLabels...), alnumIDKeyLabels...),
		Find:     findLabelledAlnumID,
	},
	{
		// A person's name just after an identity number redacted above, or
		// before it with its label between, or in the field beside it in a
		// delimited row (namelabels.go).
		Kind:        KindPersonal,
		AfterMarker: true,
		Find:        findNameAfterID,
	},
	{
		// A person's name after an honorific (namelabels.go).
		Kind:     KindPersonal,
		Triggers: []string{"mr ", "mr.", "mrs", "ms ", "ms.", "mme ", "mlle ", "herr ", "frau ", "sr. ", "sra. ", "srta. ", "dr. ", "sig. ", "sig.ra", "dott. ", "pan ", "pani ", "mevrouw ", "meneer ", "dhr. ", "mevr. ", "mag. ", "prof. ", "ing. ", "mgr. ", "bc. ", "ddr. ", "κ. "},
		Find:     findHonorificName,
	},
	{
		Kind:     KindEmail,
		Triggers: []string{"at]", "at)", "at}", "at>", " dot ", " punkt ", " punto ", " ponto ", " point ", " kropka "},
		Find:     findObfuscatedEmail,
	},
	{
		Kind:     KindEmail,
		Triggers: []string{"@"},
		Find:     findEmail, // email.go
	},
	{
		// 13–19 digits, contiguous or in the printed groupings (4-4-4-4[-3],
		// 4-6-5, 4-6-4); Check wants Luhn and a card network's first digit.
		Kind:      KindCard,
		MinDigits: 13,
		Regexp:    regexp.MustCompile(`\d{4}[ .-]\d{4}[ .-]\d{4}[ .-]\d{1,4}(?:[ .-]\d{3})?|\d{4}[ .-]\d{6}[ .-]\d{4,5}|\d{13,19}`),
		Check:     checkCard,
	},
	{
		Kind:      KindSSN,
		MinDigits: 9,
		Regexp:    regexp.MustCompile(`\d{3}-\d{2}-\d{4}`),
		Check:     checkSSN,
	},
	{
		// Spaced or unseparated, after a word that says SSN.
		Kind:     KindSSN,
		Triggers: []string{"ssn", "social security"},
		Find:     findLabelledSSN,
	},
	{
		// International numbers start with '+'; North American ones need
		// parentheses, dashes or dots, or spaces with valid area and exchange
		// codes. Bare digit runs are never phones: they are ids and times.
		Kind:      KindPhone,
		MinDigits: 10,
		Regexp: regexp.MustCompile(`\+\d{1,3}(?:[ .-]?\(\d{1,4}\))?(?:[ .-]?\d{1,5}){1,6}` +
			`|(?:1[ .-]?)?(?:\(\d{3}\)[ .-]?\d{3}[ .-]\d{4}|\d{3}-\d{3}-\d{4}|\d{3}\.\d{3}\.\d{4}|[2-9]\d{2} [2-9]\d{2} \d{4})`),
		Check: checkPhone,
	},
	{
		// National numbers written in groups, which no other run of digits
		// is: a trunk prefix 0 and an area or mobile code, then the
		// subscriber number in groups of two to four digits (06 12 34 56 78,
		// 01.42.68.53.00, 0470 12 34 56, 044 668 18 00, 020 7946 0958) or in
		// one group (030 12345678, 06-12345678, 0151 23456789); or the
		// international prefix 00 and a country code (0033 6 12 34 56 78).
		// Ten digits at least, standing alone (checkGroupedPhone).
		Kind:      KindPhone,
		MinDigits: 10,
		Regexp: regexp.MustCompile(`00[1-9]\d{0,2}(?:[ .-]\d{1,4}){2,6}` +
			`|0\d{1,4}(?:[ .-]\d{2,4}){2,4}` +
			`|0\d{1,4}[ /-]\d{5,8}`),
		Check: checkGroupedPhone,
	},
	{
		// A bracketed area code and the subscriber number split by a dash:
		// Brazil's (11) 91234-5678 (pii.go).
		Kind:      KindPhone,
		MinDigits: 8,
		Find:      findBracketedPhone,
	},
	{
		// Any national format after a word that says it is a phone.
		Kind:      KindPhone,
		MinDigits: 7,
		findIn:    findLabelledPhone,
	},
}

// digitMatchMax bounds the length of a match of a digit pattern (a card
// number with separators is 23 bytes, a phone number about 25).
const digitMatchMax = 32

// replace returns s with the pattern's accepted matches replaced; in
// describes s.
func (p *Pattern) replace(s string, in *probe) string {
	// Find's candidates have two groups: the key and the secret.
	keyGroup, numGroups := 1, 2
	if p.Find == nil && p.findIn == nil {
		keyGroup, numGroups = p.Regexp.SubexpIndex("key"), p.Regexp.NumSubexp()
	}
	secretGroups := numGroups
	if keyGroup >= 0 {
		secretGroups--
	}
	out := splicer{s: s}
	// emit replaces the candidate at loc if it is accepted, and reports
	// whether it was.
	emit := func(loc []int) bool {
		var spans [8][2]int
		n := 0
		if secretGroups == 0 {
			spans[0] = [2]int{loc[0], loc[1]}
			n = 1
		} else {
			for g := 1; g <= numGroups && n < len(spans); g++ {
				a, b := loc[2*g], loc[2*g+1]
				if g == keyGroup || a < out.copied || b <= a || isMarker(s[a:b]) {
					continue
				}
				spans[n] = [2]int{a, b}
				n++
			}
		}
		if n == 0 {
			return false
		}
		kind := p.Kind
		if p.Check != nil {
			m := Match{Input: s, Start: loc[0], End: loc[1], Secret: s[spans[0][0]:spans[0][1]]}
			if keyGroup >= 0 && loc[2*keyGroup] >= 0 {
				m.Key = s[loc[2*keyGroup]:loc[2*keyGroup+1]]
			}
			k, ok := p.Check(m)
			if !ok {
				return false
			}
			if k != "" {
				kind = k
			}
		}
		marker := kind.Marker()
		for _, sp := range spans[:n] {
			switch {
			case in.blob != "":
				out.replace(sp[0], sp[1], in.blob)
			case p.textKind:
				out.replace(sp[0], sp[1], Text(s[sp[0]:sp[1]]))
			default:
				out.replace(sp[0], sp[1], marker)
			}
		}
		return true
	}
	switch {
	case p.Find != nil || p.findIn != nil:
		for pos := 0; pos < len(s); {
			var loc []int
			if p.findIn != nil {
				in.blob = ""
				loc = p.findIn(in, s, pos)
			} else {
				loc = p.Find(s, pos)
			}
			if loc == nil || loc[0] < pos {
				break
			}
			if emit(loc) || loc[3] <= loc[0] {
				pos = max(loc[1], loc[0]+1)
			} else {
				pos = loc[3] // past the rejected key
			}
		}
		in.blob = "" // a match that ended the text leaves none to the next rule
	case p.MinDigits > 0:
		// Digit patterns search only the runs of digits long enough for
		// them, and without look-around a rejected candidate may hide an
		// accepted one that starts inside it ("12345 4111 1111 1111 1111"
		// first offers "2345 4111 1111 1111 111"), so the search goes on
		// one byte after a rejected start rather than after its end.
		for _, run := range in.digitRuns() {
			if run.digits < p.MinDigits {
				continue
			}
			for pos := max(run.lo, out.copied); pos < run.hi; {
				// A match is at most digitMatchMax bytes long, so a window
				// twice that size holds every match that starts in its first
				// half; searching windows keeps a megabyte of digits linear.
				hi := min(run.hi, pos+2*digitMatchMax)
				loc := p.Regexp.FindStringSubmatchIndex(s[pos:hi])
				if loc == nil {
					if hi == run.hi {
						break
					}
					pos += digitMatchMax
					continue
				}
				for i := range loc {
					if loc[i] >= 0 {
						loc[i] += pos
					}
				}
				if emit(loc) {
					pos = max(loc[1], loc[0]+1)
				} else {
					pos = loc[0] + 1
				}
			}
		}
	default:
		for _, loc := range p.Regexp.FindAllStringSubmatchIndex(s, -1) {
			emit(loc)
		}
	}
	return out.String()
}

// Checks. Each one is what the regular expression cannot say.

// checkWordStart keeps a token glued to a word before it ("task-…",
// "xsk-…"): the literal-prefix patterns start with it instead of \b, which
// would hide their prefix from the regexp engine's fast scan.
func checkWordStart(m Match) (Kind, bool) {
	return "", !gluedBefore(m.Input, m.Start)
}

// checkToken gives a value found after a secret label the kind of its
// label ("password hunter2" is a password); a token judged by its shape
// alone is KindToken.
func checkToken(m Match) (Kind, bool) {
	if m.Key != "" {
		if k, ok := KeyKind(m.Key); ok {
			return k, true
		}
		return KindSecret, true
	}
	if queryParamName(m.Input, m.Start, m.End) {
		return "", false
	}
	return "", true
}

// queryParamName reports whether s[a:b] is the name of a URL query's
// parameter: letters only, after '?' or '&' and before '='. A name is the
// API's word (gemeenteVanInschrijving); its value is what may be secret.
func queryParamName(s string, a, b int) bool {
	if a == 0 || b >= len(s) || s[a-1] != '?' && s[a-1] != '&' || s[b] != '=' {
		return false
	}
	for i := a; i < b; i++ {
		if !isLetter(s[i]) && s[i] != '_' {
			return false
		}
	}
	return true
}

// checkKeyValue gives a key-value candidate the kind of its key;
// findKeyValue has vetted the key already.
// checkFullWidthKey gives the value the kind its key names.
func checkFullWidthKey(m Match) (Kind, bool) {
	return PersonalKeys[m.Key], true
}

func checkKeyValue(m Match) (Kind, bool) {
	k, ok := KeyKind(m.Key)
	return k, ok && plausible(k, m.Secret)
}

func checkAWSSecret(m Match) (Kind, bool) {
	return "", m.End == len(m.Input) || !isBase64(m.Input[m.End])
}

func checkAWSSecretNearID(m Match) (Kind, bool) {
	if m.End < len(m.Input) && isBase64(m.Input[m.End]) {
		return "", false
	}
	upper, lower, _ := letterClasses(m.Secret)
	return "", upper && lower
}

// checkRandomToken accepts what looks like a credential rather than a word:
// a digit, or upper case after the first letter together with lower case.
func checkRandomToken(m Match) (Kind, bool) {
	var digit, upper, lower bool
	for i := 0; i < len(m.Secret); i++ {
		c := m.Secret[i]
		digit = digit || isDigit(c)
		upper = upper || i > 0 && c >= 'A' && c <= 'Z'
		lower = lower || c >= 'a' && c <= 'z'
	}
	return "", digit || upper && lower
}

func checkCard(m Match) (Kind, bool) {
	if !isolated(m.Input, m.Start, m.End) {
		return "", false
	}
	var digits [19]byte
	n := 0
	for i := m.Start; i < m.End; i++ {
		if c := m.Input[i]; isDigit(c) {
			if n == len(digits) {
				return "", false
			}
			digits[n] = c - '0'
			n++
		}
	}
	// Card networks: 2 (Mastercard 2-series), 3 (Amex, Diners, JCB),
	// 4 (Visa), 5 (Mastercard, Maestro), 6 (Discover, UnionPay, Maestro).
	if n < 13 || digits[0] < 2 || digits[0] > 6 {
		return "", false
	}
	return "", luhn(digits[:n])
}

// luhn reports whether digits (0–9 each) pass the Luhn checksum.
func luhn(digits []byte) bool {
	sum := 0
	for i := range digits {
		d := int(digits[len(digits)-1-i])
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

func checkSSN(m Match) (Kind, bool) {
	if !isolated(m.Input, m.Start, m.End) {
		return "", false
	}
	s := m.Input[m.Start:m.End]
	return "", validSSN(s[0:3], s[4:6], s[7:11])
}

// validSSN reports whether the parts could be issued: the SSA never issues
// area 000, 666 or 900–999, group 00 or serial 0000.
func validSSN(area, group, serial string) bool {
	return area != "000" && area != "666" && area[0] != '9' && group != "00" && serial != "0000"
}

// findLabelledSSN finds nine digits, grouped 3-2-4 by spaces or dashes or
// not at all, right after "ssn" or "social security" (and ':', '=', '#',
// "no", "number").
func findLabelledSSN(s string, from int) []int {
	for i := from; i < len(s); {
		a := indexFold(s[i:], "ssn")
		b := indexFold(s[i:], "social security")
		switch {
		case a < 0 && b < 0:
			return nil
		case a < 0 || b >= 0 && b < a:
			a = b + len("social security")
		default:
			a += len("ssn")
		}
		a += i
		i = a
		reach := 24
		if a < len(s) && s[a] == ']' && strings.HasSuffix(s[:a+1], KindSSN.Marker()) {
			// A second number right after one that went, a word between
			// ("is … not …", "… or …"), is under the same label.
			a++
			reach = 6
		}
		k := a
		for k < len(s) && k-a < reach && !isDigit(s[k]) && (s[k] == ' ' || s[k] == ':' || s[k] == '=' || s[k] == '#' || s[k] == '"' || s[k] == '\'' || isLetter(s[k])) {
			k++
		}
		var d [9]byte
		n, e := 0, k
		for e < len(s) && n < 9 {
			switch c := s[e]; {
			case isDigit(c):
				d[n] = c
				n++
			case (c == ' ' || c == '-') && (n == 3 || n == 5):
			default:
				e = len(s) + 1
			}
			e++
		}
		if n != 9 || e <= len(s) && e < len(s) && isAlnum(s[e]) {
			continue
		}
		if validSSN(string(d[0:3]), string(d[3:5]), string(d[5:9])) {
			return []int{k, e, -1, -1, k, e}
		}
	}
	return nil
}

// checkGroupedPhone vets a national number written in groups: it stands
// alone (no group of digits continues it, as in a hex dump), no
// identifier's label (isIDLabel: ids, ref, order_id) stands before it, its
// separators are of one kind, and it holds 10 to 15 digits (10 or 11 after
// a trunk prefix).
func checkGroupedPhone(m Match) (Kind, bool) {
	if !isolated(m.Input, m.Start, m.End) {
		return "", false
	}
	s, v := m.Input, m.Input[m.Start:m.End]
	if m.Start >= 2 && strings.IndexByte(" .-", s[m.Start-1]) >= 0 && isDigit(s[m.Start-2]) ||
		m.End+1 < len(s) && strings.IndexByte(" .-", s[m.End]) >= 0 && isDigit(s[m.End+1]) {
		return "", false // a longer run of groups: a hex dump, a table
	}
	if idLabelBefore(s, m.Start) {
		return "", false // "ids 020 7946 0958": the label says what they are
	}
	n, sep, groups := 0, byte(0), 1
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case isDigit(c):
			n++
		case sep == 0:
			sep = c
			groups++
		case c != sep:
			return "", false
		default:
			groups++
		}
	}
	if strings.HasPrefix(v, "00") {
		return "", n >= 11 && n <= 15
	}
	// A code and the subscriber number in one group may hold 12 digits
	// (a German mobile number, 0151 23456789).
	return "", n >= 10 && (n <= 11 || n == 12 && groups == 2)
}

// idLabelBefore reports whether the word just before s[i] (past blanks,
// ':', '=', '#' and quotes) is an identifier's label.
func idLabelBefore(s string, i int) bool {
	k := i
	for k > 0 && i-k < 8 && strings.IndexByte(" \t:=#\"'", s[k-1]) >= 0 {
		k--
	}
	e := k
	for k > 0 && e-k < 40 && (isAlnum(s[k-1]) || s[k-1] == '_' || s[k-1] == '-') {
		k--
	}
	return k < e && isIDLabel(s[k:e])
}

func checkPhone(m Match) (Kind, bool) {
	if !isolated(m.Input, m.Start, m.End) && !pathE164(m.Input, m.Start, m.End) {
		return "", false
	}
	n := 0
	for i := m.Start; i < m.End; i++ {
		if isDigit(m.Input[i]) {
			n++
		}
	}
	return "", n >= 10 && n <= 15
}

// isolated reports whether the span [start, end) of s stands on its own: not
// glued to letters, digits or '_', nor joined to them by one of ".-/+"
// (story-4111…, v1.415.555.0100, /cards/4111…, 3.14159…, +1…+2…). A marker
// counts as the word it replaced, so that a number next to a redacted one is
// judged alike in every pass.
func isolated(s string, start, end int) bool {
	if start > 0 {
		c := s[start-1]
		if gluedBefore(s, start) {
			return false
		}
		if strings.IndexByte(".-/+", c) >= 0 && gluedBefore(s, start-1) {
			return false
		}
	}
	if end < len(s) {
		c := s[end]
		if gluedAfter(s, end) {
			return false
		}
		if strings.IndexByte(".-/+(", c) >= 0 && gluedAfter(s, end+1) {
			return false
		}
	}
	return true
}

// gluedBefore reports whether s[:i] ends in a word character or a marker.
func gluedBefore(s string, i int) bool {
	if i <= 0 {
		return false
	}
	if c := s[i-1]; isWord(c) {
		return true
	} else if c != ']' {
		return false
	}
	j := strings.LastIndexByte(s[:i], '[')
	return j >= 0 && isMarker(s[j:i])
}

// gluedAfter reports whether s[i:] starts with a word character or a marker.
func gluedAfter(s string, i int) bool {
	return i < len(s) && (isWord(s[i]) || strings.HasPrefix(s[i:], markerPrefix))
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Byte classes, looked up rather than compared: the finders ask them of
// every byte.
const (
	clAlnum = 1 << iota
	clWord
	clKey
	clToken
)

var byteClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		alnum := b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
		if alnum {
			t[c] |= clAlnum
		}
		if alnum || b == '_' {
			t[c] |= clWord
		}
		if alnum || b == '_' || b == '.' || b == '-' {
			t[c] |= clKey
		}
		if alnum || strings.IndexByte("-_+/=.~", b) >= 0 {
			t[c] |= clToken
		}
	}
	return t
}()

func isAlnum(c byte) bool { return byteClass[c]&clAlnum != 0 }

// isWord is \w of RE2: a letter, a digit or '_'.
func isWord(c byte) bool { return byteClass[c]&clWord != 0 }

func isBase64(c byte) bool { return isAlnum(c) || c == '/' || c == '+' || c == '=' }
