package redact

import "strings"

// A URL's path may hold its credential: a logging intake's token
// (/inputs/<uuid>/), a health check's ping URL (hc-ping.com/<uuid>), an
// integration key (/integration/<hex>/enqueue). A path segment is such a
// capability when it has a key's shape — a UUID, or 20 hex digits or more
// — and it stands right after the host of a web URL, or when it stands
// after a segment that names a credential (KeyKind: key, token, secret) or
// an intake (IntakeWords: inputs, bulk, integration, hooks, webhook) or a
// one-time link's action (LinkActionWords: reset, verify, invite) and
// has a key's or a shorter token's shape (tokenShaped), or a key's shape
// after a one-letter segment that abbreviates one (/t/<token>/, /k/<key>/:
// a package channel's token), or at any depth
// after a webhook's segment (HookWords), or, 32 hex digits or more, right
// after an API version segment (isAPIVersion). A key's shape
// elsewhere in a path is
// a resource's id and stays (/users/<uuid>, /blobs/sha256/<digest>); a
// random-looking segment goes wherever it stands (the token rule).

// IntakeWords are path segments after which a key-shaped segment is the
// credential of an intake endpoint.
var IntakeWords = map[string]bool{
	"input": true, "inputs": true, "bulk": true, "integration": true,
	"integrations": true, "hook": true, "hooks": true, "webhook": true,
	"webhooks": true, "intake": true, "ingest": true, "collect": true,
	"ping": true, "trigger": true, "triggers": true, "notify": true,
}

// LinkActionWords are path segments naming what a one-time link does: the
// segment after them is the link's own credential (/password/reset/<hex>,
// /email/verify/<token>, /invite/<uuid>), which whoever holds it can use.
var LinkActionWords = map[string]bool{
	"reset": true, "resets": true, "confirm": true, "confirmation": true,
	"verify": true, "verification": true, "activate": true, "activation": true,
	"invite": true, "invitation": true, "unsubscribe": true, "validate": true,
	"validation": true, "recover": true, "recovery": true, "magic": true,
	"magic-link": true, "claim": true, "accept": true,
}

// findPathSecret finds a capability segment of a URL's path at or after
// from, or of the path of a request line (an access log's `"POST
// /webhook/<uuid> HTTP/1.1"`, which writes no scheme or host).
func findPathSecret(s string, from int) []int {
	return earlier(findURLPathSecret(s, from), findRequestPathSecret(s, from))
}

// findURLPathSecret finds a capability segment of a URL's path.
func findURLPathSecret(s string, from int) []int {
	for i := max(0, from-2048); i < len(s); {
		p := strings.Index(s[i:], "://")
		if p < 0 {
			return nil
		}
		p += i + 3
		i = p
		// The host, then the segments, to the query, the fragment or the
		// end of the URL.
		h := p
		for h < len(s) && s[h] != '/' && urlByte(s[h]) {
			h++
		}
		if h == p || h >= len(s) || s[h] != '/' {
			continue
		}
		web := strings.HasSuffix(s[max(0, p-8):p-3], "http") || strings.HasSuffix(s[max(0, p-8):p-3], "https")
		m, next := pathSecret(s, h, from, web)
		if m != nil {
			return m
		}
		i = max(i, next)
	}
	return nil
}

// requestMethods start a request line's path.
var requestMethods = [...]string{"GET /", "POST /", "PUT /", "PATCH /", "DELETE /", "HEAD /"}

// findRequestPathSecret finds a capability segment in the path of a
// request line: a method, a space and a path starting with '/'.
func findRequestPathSecret(s string, from int) []int {
	best := []int(nil)
	for _, m := range requestMethods {
		for i := max(0, from-2048); i < len(s); {
			k := strings.Index(s[i:], m)
			if k < 0 {
				break
			}
			k += i
			i = k + len(m)
			if k > 0 && isAlnum(s[k-1]) {
				continue
			}
			if best != nil && k >= best[0] {
				break
			}
			if r, _ := pathSecret(s, k+len(m)-1, from, false); r != nil {
				best = r
				break
			}
		}
	}
	return best
}

// pathSecret reads the segments of a path whose '/' stands at s[h] and
// returns the match of its first capability segment at or after from (a
// webhook's path holds several), or nil and where the path ended.
func pathSecret(s string, h, from int, web bool) ([]int, int) {
	prev := ""    // the host
	hook := false // a webhook's segment stood before
	for a := h + 1; a < len(s); {
		b := a
		for b < len(s) && s[b] != '/' && urlByte(s[b]) {
			b++
		}
		seg := s[a:b]
		if a >= from && !startsWithMarker(s, a) && (prev == "" && web && keyShaped(seg) ||
			prev != "" && (capabilityLabel(prev) || hook) && (keyShaped(seg) || tokenShaped(seg)) ||
			(prev == "t" || prev == "k") && keyShaped(seg) ||
			atToken(seg) ||
			isAPIVersion(prev) && len(seg) >= 32 && isHexPiece(seg) && hasLetter(seg) && !isUUID(seg)) {
			return []int{a, b, -1, -1, a, b}, b
		}
		if b >= len(s) || s[b] != '/' {
			return nil, b
		}
		hook = hook || hookWord(seg)
		prev, a = seg, b+1
	}
	return nil, len(s) // a path that ends in '/': the next URL is searched past it
}

// HookWords are path segments that make the URL a webhook's: its secret
// may stand any number of segments after them, past the webhook's name or
// id (/webhook/<name>/<secret>, /hooks/<id>/<name>/<secret>).
var HookWords = map[string]bool{"hook": true, "hooks": true, "webhook": true, "webhooks": true}

// hookWord reports whether a path segment makes the URL a webhook's: one
// of HookWords, or a segment with "webhook" in it (Microsoft Teams'
// /webhookb2/ and /IncomingWebhook/).
func hookWord(seg string) bool {
	l := strings.ToLower(seg)
	return HookWords[l] || strings.Contains(l, "webhook")
}

// isAPIVersion reports whether a path segment is an API's version (v3,
// v3.1): a key of 32 hex digits or more right after it is the caller's
// credential (SoftLayer's /rest/v3.1/<key>/…), where a resource would
// otherwise be a collection's name.
func isAPIVersion(seg string) bool {
	if len(seg) < 2 || seg[0] != 'v' && seg[0] != 'V' || !isDigit(seg[1]) {
		return false
	}
	for i := 2; i < len(seg); i++ {
		if !isDigit(seg[i]) && seg[i] != '.' {
			return false
		}
	}
	return true
}

// urlByte reports whether c may stand in a URL's host or path segment.
func urlByte(c byte) bool {
	return isAlnum(c) || strings.IndexByte("-._~%!$&'*+,;=:@", c) >= 0 && c != '?' && c != '#'
}

// keyShaped reports whether a path segment has a key's shape: a UUID (also
// after a short prefix of letters: "ex-<uuid>", "tok_<uuid>"), or 20 hex
// digits or more of one case, letters among them.
func keyShaped(seg string) bool {
	if a, b, ok := strings.Cut(seg, "@"); ok && len(a) >= 20 && len(b) >= 20 {
		// Two keys joined by '@' (a Teams webhook's group@tenant).
		return keyShaped(a) && keyShaped(b)
	}
	return isUUID(seg) || prefixedUUID(seg) || len(seg) >= 20 && isHexPiece(seg) && hasLetter(seg)
}

// prefixedUUID reports whether seg is a UUID after one to four letters and
// a '-' or '_'.
func prefixedUUID(seg string) bool {
	if len(seg) < 38 || len(seg) > 41 {
		return false
	}
	p := len(seg) - 36
	if seg[p-1] != '-' && seg[p-1] != '_' {
		return false
	}
	for i := 0; i < p-1; i++ {
		if !isLetter(seg[i]) {
			return false
		}
	}
	return isUUID(seg[p:])
}

// hasLetter reports whether s holds an ASCII letter: a run of digits is a
// number or an id (a Discord webhook's id), not a key.
func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if isLetter(s[i]) {
			return true
		}
	}
	return false
}

// tokenShaped reports whether a segment after a credential's or an
// intake's segment looks like its token though shorter than a key: 12
// characters or more of letters, digits, '-' and '_', with digits, and
// either hex of one case or both cases of letters ("2c7e9a4f1b3d5e6f",
// "bQ4xR7tYz2Wm"; not "order-created-v2").
func tokenShaped(seg string) bool {
	if len(seg) < 12 {
		return false
	}
	var digit, upper, lower bool
	for i := 0; i < len(seg); i++ {
		switch c := seg[i]; {
		case isDigit(c):
			digit = true
		case isUpper(c):
			upper = true
		case isLower(c):
			lower = true
		case c != '-' && c != '_':
			return false
		}
	}
	return digit && (isHexPiece(seg) && (upper || lower) || upper && lower)
}

// capabilityLabel reports whether a path segment names a credential or an
// intake, so that a key-shaped segment after it is one.
func capabilityLabel(seg string) bool {
	if l := strings.ToLower(seg); IntakeWords[l] || LinkActionWords[l] {
		return true
	}
	_, ok := KeyKind(seg)
	return ok
}

// NotifySchemes are the URL schemes of notification libraries (shoutrrr's
// and apprise's service URLs): the URL's user, password, host and path
// segments are the service's ids and tokens (teams://group@tenant/altId/
// groupOwner, msteams://team/tokenA/tokenB/tokenC, pover://user@token,
// tgram://bot_token/chat_id), so any of them with a token's shape is the
// webhook's credential.
var NotifySchemes = map[string]bool{
	"teams": true, "msteams": true, "slack": true, "discord": true, "telegram": true, "tgram": true,
	"googlechat": true, "gchat": true, "rocketchat": true, "rocket": true, "rockets": true,
	"mattermost": true, "mmost": true, "mmosts": true, "pushover": true, "pover": true, "gotify": true,
	"gotifys": true, "ntfy": true, "ntfys": true, "zulip": true, "matrix": true, "matrixs": true,
	"pushbullet": true, "pbul": true, "ifttt": true, "join": true, "opsgenie": true, "bark": true,
	"barks": true, "workflows": true, "workflow": true, "wf": true, "pagerduty": true, "signal": true,
	"signals": true, "dingtalk": true, "wecombot": true, "feishu": true, "lark": true, "flock": true,
	"guilded": true, "revolt": true, "line": true, "lametric": true, "spush": true, "prowl": true,
	"notica": true, "notifiarr": true, "pjet": true, "twist": true, "webexteams": true, "wxteams": true,
	"mailgun": true, "sendgrid": true, "sparkpost": true, "twilio": true, "pushy": true, "pushed": true,
	"pushdeer": true, "pushplus": true, "serverchan": true, "schan": true, "splunk": true, "victorops": true,
}

// findNotifySecret finds, at or after from, a component of a notification
// library's service URL (NotifySchemes) with a token's shape: the parts
// of its authority and path between '/', '@' and ':' up to its query. A
// host name (a part with a dot), a short id and a word (TokenA, a team's
// name) stay.
func findNotifySecret(s string, from int) []int {
	for i := max(0, from-2048); i < len(s); {
		p := strings.Index(s[i:], "://")
		if p < 0 {
			return nil
		}
		p += i
		i = p + 3
		k := p
		for k > 0 && (isAlnum(s[k-1]) || s[k-1] == '-') {
			k--
		}
		if !NotifySchemes[strings.ToLower(s[k:p])] || k > 0 && (s[k-1] == '.' || s[k-1] == '+') {
			continue
		}
		for a := p + 3; a < len(s); {
			if e := skipMarker(s, a); e != a {
				// A part redacted already.
				a = e + 1
				if a >= len(s) || s[a] != '/' && s[a] != '@' && s[a] != ':' {
					break
				}
				a++
				continue
			}
			b := a
			for b < len(s) && urlByte(s[b]) && s[b] != '/' && s[b] != '@' && s[b] != ':' {
				b++
			}
			if b > from || b == from && a == b {
				if a >= from && notifyToken(s[a:b]) {
					return []int{a, b, -1, -1, a, b}
				}
			}
			if b >= len(s) || s[b] != '/' && s[b] != '@' && s[b] != ':' {
				i = max(i, b)
				break
			}
			a = b + 1
		}
	}
	return nil
}

// notifyToken reports whether a part of a notification URL is a token: a
// key's or a shorter token's shape, or 20 characters or more of letters
// and digits (a Mattermost hook's lower-case id).
func notifyToken(part string) bool {
	if strings.IndexByte(part, '.') >= 0 {
		return false
	}
	if keyShaped(part) || tokenShaped(part) {
		return true
	}
	return len(part) >= 20 && lettersAndDigits(part, "-_")
}

// atToken reports whether a path segment is a token joined by '@': 20
// characters or more of letters, digits, '_' and '-', with digits, and an
// '@' inside (an Aliyun ARMS endpoint's /adapt_<id>@<id>_<id>@<id>/api/otlp/
// path, which authenticates the exporter). A package's name@version
// (/@scope/name@1.2.3) has dots or a leading '@'.
func atToken(seg string) bool {
	if len(seg) < 20 || seg[0] == '@' || seg[len(seg)-1] == '@' || strings.IndexByte(seg, '@') < 0 {
		return false
	}
	return lettersAndDigits(seg, "_-@")
}

// lettersAndDigits reports whether s holds both letters and digits and no
// other byte but those of joiners.
func lettersAndDigits(s, joiners string) bool {
	var digit, letter bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isDigit(c):
			digit = true
		case isLetter(c):
			letter = true
		case strings.IndexByte(joiners, c) < 0:
			return false
		}
	}
	return digit && letter
}
