package redact

import (
	"sort"
	"strings"
	"sync"
)

// The key matcher. A key is split into lowercase words at non-alphanumeric
// characters and camel-case humps ("X-Api-Key", "api_key", "apiKey" and
// "APIKey" all give api|key). The tables below are the whole rule.

// SecretWords are words that make a key secret, with the marker kind its
// value gets: "token", "db_password", "session_id", "Authorization".
var SecretWords = map[string]Kind{
	"password": KindPassword, "passwords": KindPassword, "passwd": KindPassword,
	"pwd": KindPassword, "pass": KindPassword, "passphrase": KindPassword,
	"passcode": KindPassword, "pincode": KindPassword, "psk": KindPassword,
	"secret": KindSecret, "secrets": KindSecret, "clientsecret": KindSecret,
	"token": KindSecret, "auth": KindSecret, "authn": KindSecret, "authz": KindSecret,
	"credential": KindSecret, "credentials": KindSecret, "creds": KindSecret,
	"apikey": KindSecret, "apikeys": KindSecret, "accesskey": KindSecret,
	"secretkey": KindSecret, "privatekey": KindSecret,
	"session": KindSecret, "sessionid": KindSecret, "sessid": KindSecret,
	"signature": KindSecret, "sig": KindSecret, "jwt": KindSecret, "hmac": KindSecret,
	"otp": KindSecret, "totp": KindSecret, "csrf": KindSecret, "xsrf": KindSecret,
	"authorization": KindBearer, "bearer": KindBearer,
	"cookie": KindCookie, "cookies": KindCookie, "setcookie": KindCookie,
}

// SecretFragments make a key secret when a single word contains them, for
// keys written without separators: "openaiapikey", "dbpassword",
// "JSESSIONID", "PHPSESSID". A word ending in "token" ("accesstoken") is secret too.
// The table is read once, on first use.
var SecretFragments = map[string]Kind{
	"password": KindPassword, "passwd": KindPassword, "passphrase": KindPassword,
	"secret": KindSecret, "apikey": KindSecret, "accesskey": KindSecret,
	"secretkey": KindSecret, "privatekey": KindSecret, "credential": KindSecret,
	"signature": KindSecret, "sessionid": KindSecret, "sessid": KindSecret,
	"authorization": KindBearer, "cookie": KindCookie,
}

// KeyPrefixes make the word "key" after them secret (api_key, access-key,
// PrivateKey, signing_key), and the plural "tokens" after them (access_tokens,
// refresh_tokens). "key" after another word is secret too unless the word is
// one of NonSecretKeyQualifiers or MetaWords (partition_key,
// idempotency_key, max_keys); alone (S3's Key) it is not, nor are "tokens"
// elsewhere (max_tokens, prompt_tokens).
var KeyPrefixes = map[string]bool{
	"api": true, "access": true, "secret": true, "private": true, "signing": true,
	"encryption": true, "master": true, "account": true, "subscription": true,
	"client": true, "function": true, "functions": true, "license": true, "app": true,
	"auth": true, "sas": true, "storage": true, "shared": true, "hmac": true,
	"webhook": true, "session": true, "consumer": true, "ssh": true, "gpg": true,
	"pgp": true, "jwt": true, "refresh": true, "id": true, "bearer": true,
	"oauth": true, "csrf": true, "xsrf": true,
}

// MetaWords, after the last secret word of a key, say the value describes
// the secret rather than being it: token_count, secret_arn, password_length,
// auth_type, token_expires_at, signature_version, api_key_present.
var MetaWords = map[string]bool{
	"count": true, "counts": true, "limit": true, "limits": true, "used": true,
	"algo": true, "user": true, "username": true, "login": true,
	"usage": true, "type": true, "types": true, "kind": true, "name": true,
	"names": true, "arn": true, "len": true, "length": true, "size": true,
	"version": true, "url": true, "uri": true, "endpoint": true, "path": true,
	"file": true, "filename": true, "ttl": true, "expiry": true, "expires": true,
	"expiration": true, "expired": true, "enabled": true, "disabled": true,
	"set": true, "present": true, "provided": true, "required": true,
	"configured": true, "missing": true, "valid": true, "invalid": true,
	"scope": true, "scopes": true, "source": true, "provider": true,
	"format": true, "algorithm": true, "alg": true, "mode": true, "method": true,
	"scheme": true, "strategy": true, "max": true, "min": true, "per": true,
	"rate": true, "remaining": true, "reset": true, "budget": true,
	"estimate": true, "estimated": true, "index": true, "status": true,
	"error": true, "errors": true, "field": true, "ref": true, "location": true,
	"region": true, "rotation": true, "rotated": true, "lifetime": true,
	"duration": true, "timeout": true, "age": true, "hint": true, "policy": true,
	"ssid": true, "flags": true, "sec": true, "secs": true, "seconds": true, "ms": true,
}

// HarmlessWords are never secret although they contain a fragment.
var HarmlessWords = map[string]bool{
	"secretary": true, "secretaries": true, "secretariat": true,
}

// TextKeys are the keys, compared without case and separators, whose values
// are prompts, completions or other free text: Text replaces them. The list
// follows the request and response bodies of OpenAI (messages, content,
// prompt, input_text, output_text), Anthropic (system, messages, content,
// text, completion), Gemini (contents, systemInstruction) and triage's own
// article pipeline (article, article_text, html, markdown, transcript).
// "message" (an error's message) is deliberately absent.
var TextKeys = map[string]bool{
	"prompt": true, "prompts": true, "messages": true, "system": true,
	"systemprompt": true, "systeminstruction": true, "userprompt": true,
	"completion": true, "completions": true, "content": true, "contents": true,
	"text": true, "texts": true, "inputtext": true, "outputtext": true,
	"prompttext": true, "fulltext": true, "rawtext": true, "article": true,
	"articletext": true, "articlebody": true, "transcript": true,
	"instructions": true, "html": true, "rawhtml": true, "markdown": true,
	"query": true, "question": true, "questions": true, "parts": true,
	"document": true, "documents": true, "preamble": true, "chathistory": true,
	"generatedtext": true, "usermessage": true, "systemmessage": true,
	"assistantmessage": true, "humanmessage": true, "chatmessage": true,
	"userinput": true, "inputtexts": true, "promptvariables": true,
	"generated": true, "generation": true,
	"speechresult": true, "unstablespeechresult": true, "transcriptiontext": true, "speech": true,
}

// TextKeySuffixes extend TextKeys to any compound key whose last word
// (past an index: gen_ai.prompt.0.content) is one of them: rendered_prompt,
// chatCompletion, additional_instructions, page_content, system_prompt,
// gen_ai.input.messages, retrieval.documents.0.document.content,
// ai.response.text, gen_ai.tool.call.arguments — unless a word before it
// says the text is the system's own (DescriptorWords: error-text,
// statusText).
var TextKeySuffixes = map[string]bool{
	"prompt": true, "prompts": true, "completion": true, "completions": true,
	"transcript": true, "content": true, "contents": true, "text": true,
	"texts": true, "instruction": true, "instructions": true, "preamble": true,
	"messages": true, "question": true, "questions": true, "query": true,
	"queries": true, "arguments": true, "history": true, "documents": true,
	"utterance": true, "utterances": true,
}

// TurnWords, before "message" or "msg" at the end of a key, say the
// message is a turn of a conversation, not an error's: user_message,
// gen_ai.input.message, chat.msg. "message" alone is an error's.
var TurnWords = map[string]bool{
	"user": true, "system": true, "assistant": true, "human": true, "ai": true,
	"chat": true, "input": true, "output": true, "tool": true, "bot": true,
	"llm": true, "prompt": true, "model": true, "developer": true, "agent": true,
	"customer": true, "last": true, "first": true, "initial": true, "next": true,
}

// CarrierWords, at the end of a key, hold whatever an earlier content word
// (ContentWords) names: input.value, output.value,
// llm.prompt_template.template, llm.prompt_template.variables,
// ai.toolCall.args, messages.raw.
var CarrierWords = map[string]bool{
	"value": true, "values": true, "template": true, "variables": true,
	"vars": true, "args": true, "raw": true, "body": true, "str": true,
	"string": true, "rendered": true, "formatted": true,
}

// ContentWords are the words that make a key about content when a
// CarrierWords word ends it.
var ContentWords = map[string]bool{
	"prompt": true, "prompts": true, "input": true, "inputs": true, "output": true,
	"outputs": true, "completion": true, "message": true, "messages": true,
	"content": true, "contents": true, "call": true, "text": true, "query": true,
	"instructions": true, "document": true, "documents": true,
}

// DescriptorWords, anywhere before a key's last word, say its value is the
// system's own description of something, not content: error_text,
// statusText, errorMessages, exception.message, or a digest of the content
// (MD5OfMessageBody, content_sha256 — a digest word before the last).
var DescriptorWords = map[string]bool{
	"error": true, "errors": true, "err": true, "status": true, "fault": true,
	"exception": true, "warning": true, "reason": true, "alt": true,
	"help": true, "hint": true, "label": true, "placeholder": true,
	"validation": true, "log": true, "commit": true, "md5": true, "sha": true,
	"sha1": true, "sha256": true, "sha512": true, "hash": true, "checksum": true,
	"digest": true, "crc32": true, "crc32c": true, "etag": true, "fingerprint": true,
	"severity": true,
}

// PayloadKeys are keys whose values are walked like any other value when
// they are JSON (an object, an array, or a string holding one) — an SQS body
// or a provider's error body keeps its ids and codes — and replaced by Text
// otherwise (an article body, a model's raw output).
var PayloadKeys = map[string]bool{
	"body": true, "rawbody": true, "requestbody": true, "responsebody": true,
	"input": true, "inputs": true, "output": true, "outputs": true,
}

// ParamNames are query parameter names that are secret in a URL although
// they are not secret keys elsewhere: an OAuth "code", an Azure SAS "sig", a
// bare "key".
var ParamNames = map[string]bool{
	"key": true, "code": true, "sig": true,
}

// KeyKind reports whether values under key are secret or personal data, and
// which marker kind they get: KindPassword for password-like keys,
// KindCookie for cookies, KindBearer for Authorization, the kind of the data
// for PersonalKeys (KindEmail, KindPhone, KindPersonal, …), KindSecret for
// the rest. Keys are matched without case and separators, and as words
// inside longer keys (openai_api_key, x-api-key, client_secret,
// db_password); "key" is secret after a KeyPrefixes word or after any word
// but NonSecretKeyQualifiers and MetaWords (AZURE_OPENAI_KEY, stripe_key;
// not partition_key, max_keys). Counters and metadata (max_tokens,
// prompt_tokens, token_count, secret_arn) and "author" are not secret.
// Markers inside the key are ignored. The empty key is not secret.
func KeyKind(key string) (Kind, bool) {
	r := roleOf(key)
	return r.kind, r.kind != ""
}

// IsSecretParam reports whether a URL query parameter's value is secret: a
// secret key (KeyKind) or one of ParamNames (key, code, sig).
func IsSecretParam(name string) bool {
	if ParamNames[strings.ToLower(name)] {
		return true
	}
	_, ok := KeyKind(name)
	return ok
}

// IsTextKey reports whether values under key are free text that Text
// replaces: one of TextKeys, compared without case and separators, or a
// compound key by its words (compoundText: a content suffix, a turn's
// message, a carrier after a content word, no descriptor before).
// prompt_tokens, content_type, error_text and error messages are not text
// keys; a secret key never is.
func IsTextKey(key string) bool { return roleOf(key).text }

// keyRole is what a key says about its value.
type keyRole struct {
	kind    Kind // secret, with this marker kind; "" if not
	text    bool // free text: Text replaces it
	payload bool // a body: walked when JSON, Text otherwise
	id      bool // an identifier: the random-token rule does not apply
	args    bool // a job's arguments: free text in them is content (jobargs.go)
	// proseOf is the key of a member that has no other role, set by the
	// readers of structure (roleOf never sets it): free text under it is
	// content when proseKey(proseOf) — judged only when a value is free
	// text (isFreeText), which is rarer than a key.
	proseOf string
}

// prose reports whether text under a member of role r is content by the
// prose rule (proseKey).
func (r *keyRole) prose(text string) bool {
	return r != nil && r.proseOf != "" && isFreeText(text) && proseKey(r.proseOf)
}

// OwnTextWords are the words of keys whose free text is the system's own —
// an error's or a log's message, a reason, a hint, a title, a command —
// which the operator needs. Free text under any other key that holds no
// other role (a ticket's "Body", a record's "notes", a RAG "context", a
// form's "SpeechResult") is what somebody sent, so it is content: deny by
// default (proseKey).
var OwnTextWords = map[string]bool{
	"message": true, "msg": true, "m": true, "mt": true, "x": true,
	"error": true, "errors": true, "err": true, "errmsg": true, "detail": true,
	"details": true, "description": true, "desc": true, "reason": true,
	"cause": true, "hint": true, "help": true, "title": true, "status": true,
	"statustext": true, "type": true, "code": true, "explanation": true,
	"suggestion": true, "remedy": true, "resolution": true, "advice": true,
	"action": true, "fix": true, "warning": true, "warnings": true, "info": true,
	"log": true, "event": true, "operation": true, "exception": true,
	"fault": true, "faultstring": true, "trace": true, "stack": true,
	"stacktrace": true, "backtrace": true, "traceback": true, "path": true,
	"file": true, "url": true, "uri": true, "endpoint": true, "host": true,
	"command": true, "cmd": true, "sql": true, "stmt": true, "statement": true,
	"expression": true, "expr": true, "filter": true, "condition": true,
	"constraint": true, "rule": true, "policy": true, "name": true,
	"label": true, "version": true, "summary": true, "outcome": true,
	"state": true, "phase": true, "stage": true, "step": true, "category": true,
	"kind": true, "class": true, "severity": true, "level": true, "source": true,
	"component": true, "service": true, "logger": true, "caller": true,
	"function": true, "func": true, "method": true, "module": true,
	"verdict": true, "problem": true,
	"issue": true, "diagnosis": true, "notice": true,
	"alert": true, "user": true, "agent": true, "ua": true,
	"useragent": true, "format": true, "pattern": true,
	"schedule": true, "cron": true, "sort": true, "order": true,
	"scope": true, "scopes": true, "permission": true, "permissions": true,
	"role": true, "tier": true, "plan": true, "region": true, "zone": true,
	"date": true, "time": true, "timestamp": true, "duration": true,
	"unit": true, "units": true, "limit": true, "quota": true, "reset": true,
	"retry": true, "after": true, "note": true, "fatal": true, "panic": true, "critical": true, "crit": true, "debug": true, "warn": true, "remote": true, "usage": true, "example": true, "expected": true, "actual": true, "got": true, "want": true, "stderr": true, "stdout": true, "value": true, "values": true, "diagnostics": true, "diagnostic": true, "why": true, "what": true,
}

// proseKey reports whether free text under key is content (OwnTextWords):
// a key of words none of which is the system's own text or describes it
// (DescriptorWords). An empty key, or one that is no identifier, is not.
func proseKey(key string) bool {
	key = stripMarkers(key)
	if key == "" || len(key) > 64 {
		return false
	}
	var buf [16]string
	words := splitWords(key, buf[:0])
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		if OwnTextWords[w] || DescriptorWords[w] {
			return false
		}
	}
	return true
}

// roles memoizes roleOf, which is pure: a log's keys repeat (every line of
// a service writes the same few), and judging one splits it into words and
// reads a dozen tables. It holds the first maxRoles distinct keys of up to
// 64 bytes, so its memory is bounded whatever the text; the tables are
// read once, before any key is judged, and never change after.
var roles struct {
	sync.RWMutex
	m map[string]keyRole
}

const maxRoles = 8192

// roleOf is judgeKey, memoized (roles).
func roleOf(key string) keyRole {
	if len(key) > 64 {
		return judgeKey(key)
	}
	roles.RLock()
	r, ok := roles.m[key]
	roles.RUnlock()
	if ok {
		return r
	}
	r = judgeKey(key)
	roles.Lock()
	if roles.m == nil {
		roles.m = make(map[string]keyRole)
	}
	if len(roles.m) < maxRoles {
		roles.m[strings.Clone(key)] = r
	}
	roles.Unlock()
	return r
}

// judgeKey splits key into words once and reads every table.
func judgeKey(key string) keyRole {
	key = stripMarkers(key)
	var buf [16]string
	words := splitWords(key, buf[:0])
	if kind := secretKind(words); kind != "" {
		return keyRole{kind: kind}
	}
	if kind := personalKind(words); kind != "" {
		return keyRole{kind: kind}
	}
	var nbuf [64]byte
	norm := nbuf[:0]
	for _, w := range words {
		norm = append(norm, w...)
	}
	return keyRole{
		text:    TextKeys[string(norm)] || compoundText(words),
		payload: PayloadKeys[string(norm)],
		args:    JobArgKeys[string(norm)],
	}
}

// compoundText applies the compound content-key rules to the lowercase
// words of a key: its last word, past an index, is a content suffix
// (TextKeySuffixes), a conversation's message (TurnWords before "message"),
// or a carrier of an earlier content word (CarrierWords after one of
// ContentWords); and no word before it describes the system's own text
// (DescriptorWords).
func compoundText(words []string) bool {
	n := len(words)
	for n > 1 && isAllDigits(words[n-1]) {
		n--
	}
	if n == 0 {
		return false
	}
	last, head := words[n-1], words[:n-1]
	for _, w := range head {
		if DescriptorWords[w] {
			return false
		}
	}
	switch {
	case TextKeySuffixes[last]:
		return true
	case last == "message" || last == "msg":
		for _, w := range head {
			if TurnWords[w] {
				return true
			}
		}
	case CarrierWords[last]:
		for _, w := range head {
			if ContentWords[w] || last == "template" && TurnWords[w] {
				return true // llm.prompt_template.template, user_template
			}
		}
	case last == "output" || last == "outputs" || last == "context" || last == "contexts":
		// A model's or a test case's output (actual_output,
		// expected_output, generated_output), the documents retrieved for
		// a prompt (retrieval_context).
		for _, w := range head {
			if TurnWords[w] || AnswerQualifiers[w] {
				return true
			}
		}
	}
	return false
}

// AnswerQualifiers, before "output", "context" or a carrier at the end of
// a key, say it holds a model's answer, a test case's expected one, or the
// documents retrieved for a prompt.
var AnswerQualifiers = map[string]bool{
	"actual": true, "expected": true, "generated": true, "retrieval": true, "retrieved": true,
	"rag": true, "final": true, "reference": true,
}

// lowerKey lowers a key's ASCII letters and keeps its offsets: Go's
// ToLower (one allocation) for an ASCII key, byte by byte for one with
// letters of other scripts, whose lower case may differ in length.
func lowerKey(key string) string {
	if hasHighByte(key) {
		return lowerString(key)
	}
	return strings.ToLower(key)
}

// secretKind applies the secret-key rules to the lowercase words of a key.
func secretKind(words []string) Kind {
	last := -1
	var kind Kind
	for i, w := range words {
		k := wordKind(w)
		switch {
		case k != "":
		case (w == "key" || w == "keys" || w == "tokens") && i > 0 && KeyPrefixes[words[i-1]]:
			k = KindSecret
		case (w == "key" || w == "keys") && i > 0 && !NonSecretKeyQualifiers[words[i-1]] && !MetaWords[words[i-1]] && !isAllDigits(words[i-1]):
			// A vendor's key (AZURE_OPENAI_KEY, stripe_key, MAILGUN_KEY):
			// any qualifier but those that make a key something else.
			k = KindSecret
		default:
			continue
		}
		last, kind = i, k
	}
	if last < 0 {
		return ""
	}
	for _, w := range words[last+1:] {
		if MetaWords[w] {
			return ""
		}
	}
	return kind
}

// stripMarkers removes the markers String put into a key, so that the words
// of a marker ("[REDACTED:aws-access-key]") never make a key secret: a key
// redacted once is judged as it was the first time.
func stripMarkers(key string) string {
	for {
		i := strings.Index(key, markerPrefix)
		if i < 0 {
			return key
		}
		j := strings.IndexByte(key[i:], ']')
		if j < 0 {
			return key
		}
		key = key[:i] + " " + key[i+j+1:]
	}
}

// wordKind returns the kind of one lowercase word, or "".
func wordKind(w string) Kind {
	if k, ok := SecretWords[w]; ok {
		return k
	}
	if len(w) < 5 || HarmlessWords[w] {
		return ""
	}
	for _, f := range loadFragments() {
		if strings.Contains(w, f.text) {
			return f.kind
		}
	}
	if strings.HasSuffix(w, "token") {
		return KindSecret
	}
	return misspeltKind(w)
}

// MisspeltTargets are the credential words whose misspellings — one letter
// dropped, added, changed or two swapped ("passwrod", "pasword",
// "secert", "credentail") — still name a credential: a key is written by
// hand as often as by a program. Words of six letters or more only, the
// first two letters kept, so that a short word is never a typo of one.
var MisspeltTargets = map[string]Kind{
	"password": KindPassword, "passwd": KindPassword, "passphrase": KindPassword,
	"secret": KindSecret, "credential": KindSecret, "credentials": KindSecret,
	"apikey": KindSecret, "privatekey": KindSecret, "secretkey": KindSecret,
}

// NotMisspelt are words one edit from a credential word that are words of
// their own.
var NotMisspelt = map[string]bool{"passed": true, "passes": true, "secrete": true, "secreted": true}

// misspeltKind returns the kind of the credential word w is one edit
// from (MisspeltTargets), or "".
func misspeltKind(w string) Kind {
	if len(w) < 6 || w[0] != 'p' && w[0] != 's' && w[0] != 'c' && w[0] != 'a' {
		return "" // cheap way out: no target starts so
	}
	for _, t := range misspeltOrder {
		if w[0] == t[0] && w[1] == t[1] && len(w)-len(t) <= 1 && len(t)-len(w) <= 1 && oneEdit(w, t) && !NotMisspelt[w] {
			return MisspeltTargets[t]
		}
	}
	return ""
}

// misspeltOrder is MisspeltTargets' words in a fixed order: a map's
// iteration costs more than the comparisons.
var misspeltOrder = func() []string {
	o := make([]string, 0, len(MisspeltTargets))
	for t := range MisspeltTargets {
		o = append(o, t)
	}
	sort.Strings(o)
	return o
}()

// oneEdit reports whether a and b differ by exactly one letter dropped,
// added or changed, or two neighbours swapped.
func oneEdit(a, b string) bool {
	if a == b {
		return false
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	switch {
	case len(a) == len(b):
		if a[i+1:] == b[i+1:] {
			return true // changed
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:] // swapped
	case len(a) == len(b)+1:
		return a[i+1:] == b[i:]
	default:
		return b[i+1:] == a[i:]
	}
}

type fragment struct {
	text string
	kind Kind
}

var (
	fragmentsOnce sync.Once
	fragments     []fragment
)

// loadFragments snapshots SecretFragments on first use, strongest kind
// first, so that a word holding several fragments gets the same kind every
// time.
func loadFragments() []fragment {
	fragmentsOnce.Do(func() {
		for t, k := range SecretFragments {
			fragments = append(fragments, fragment{t, k})
		}
		sort.Slice(fragments, func(i, j int) bool {
			if ri, rj := kindRank(fragments[i].kind), kindRank(fragments[j].kind); ri != rj {
				return ri > rj
			}
			return fragments[i].text < fragments[j].text
		})
	})
	return fragments
}

// kindRank orders the kinds a key can get, so that a key matching several
// fragments gets the same kind every time.
func kindRank(k Kind) int {
	switch k {
	case KindPassword:
		return 4
	case KindCookie:
		return 3
	case KindBearer:
		return 2
	case KindSecret:
		return 1
	}
	return 0
}

// splitWords appends the lowercase words of key to dst: runs of ASCII
// letters and digits, split again at camel-case humps ("apiKey" → api|key,
// "APIKey" → api|key, "OAuthToken" → o|auth|token). Other bytes separate.
func splitWords(key string, dst []string) []string {
	lower := key
	for i := 0; i < len(key); i++ {
		if c := key[i]; c >= 'A' && c <= 'Z' {
			lower = lowerKey(key) // once per key, and only with capitals
			break
		}
	}
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			dst = append(dst, lower[start:end])
		}
		start = -1
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !isAlnum(c) && c < 0x80 { // letters of other scripts are a word's too (ПІБ, 성명)
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := key[i-1]
		upper := c >= 'A' && c <= 'Z'
		prevUpper := prev >= 'A' && prev <= 'Z'
		nextLower := i+1 < len(key) && key[i+1] >= 'a' && key[i+1] <= 'z'
		if upper && !prevUpper || upper && prevUpper && nextLower {
			flush(i)
			start = i
		}
	}
	flush(len(key))
	return dst
}
