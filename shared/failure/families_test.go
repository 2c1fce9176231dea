package failure_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
)

// TestStatusInProse: a status an HTTP client writes in a sentence is read
// like a labelled one and then by the upstream's role; a number that is
// not a status beside those words is not one.
func TestStatusInProse(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]failure.Class{
		"Error: Request failed with status code 429":                                                  rl,
		"Error: Request failed with code 502":                                                         uu,
		"HttpRequestException: Response status code does not indicate success: 404 (Not Found).":      nf,
		"java.io.IOException: Server returned HTTP response code: 503 for URL: https://example.com/a": uu,
		"WebhookClient: Request returned failure 410: {\"message\": \"gone\"}":                        nf,
		"Request failed for https://example.com returned code 429. Truncated server response":         rl,
		"Bad response status for read: 524 A Timeout Occurred":                                        nt,
		"net_http_message_not_success_statuscode_reason, 503, Service Unavailable":                    uu,
		"non-2xx status code: 500 from origin":                                                        uu,
		// not statuses: a count, a status with a fraction, a port
		"fetch returned 3 items, status ok":                failure.Unknown,
		"status: degraded (4040 pending)":                  failure.Unknown,
		"failed with exit code 1 after 450ms on port 8080": failure.Unknown,
	} {
		err := &failure.Evidence{Stage: pipeline.Fetch, Text: text}
		if c := failure.Classify(err); c.Class != want {
			t.Errorf("%q: %s (%s), want %s", text, c.Class, c.Reason, want)
		}
	}
}

// TestModelWordsPrecedence: among a model endpoint's words an input too
// long beats a parameter merely named, a parameter that is itself wrong
// stays the model's client error, a model still loading is an upstream
// not serving yet, and money and quota in other languages are money.
func TestModelWordsPrecedence(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		status int
		msg    string
		want   failure.Class
	}{
		"too many tokens, then max_tokens":   {400, "too many tokens: prompt and completion cannot exceed 8192 - received 9001. Use a shorter prompt or a smaller max_tokens value.", tl},
		"max_tokens out of range":            {400, "max_tokens is too large: 9000. This model supports at most 4096 completion tokens.", ce},
		"max_output_tokens above its limit":  {400, "maxOutputTokens must be at most 8192", ce},
		"a model loading, no status":         {0, "Model acme/tiny is currently loading", uu},
		"a model warming up, 400":            {400, "Model sentiment is not ready yet.", uu},
		"a model not there keeps its 404":    {404, "Model acme/tiny does not exist", ce},
		"balance in Chinese, 403":            {403, "Forbidden: 用户余额不足，请充值", be},
		"balance in Traditional Chinese":     {402, "餘額不足", be},
		"quota in Japanese, 429":             {429, "APIのクォータを超過しました", be},
		"rate in Chinese, 429":               {429, "请求过于频繁，请稍后再试", rl},
		"balance in Spanish":                 {400, "Saldo insuficiente en la cuenta", be},
		"quota in Portuguese":                {403, "Cota excedida para este projeto", be},
		"balance in German":                  {403, "Nicht genügend Guthaben auf dem Konto", be},
		"rate in French":                     {429, "Trop de requêtes, réessayez plus tard", rl},
		"a German rate is still a rate":      {400, "Zu viele Anfragen pro Minute", rl},
		"a Chinese request word is no money": {400, "請求錯誤：參數無效", ce},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var err error = &failure.Evidence{Provider: "acme", Stage: pipeline.LLM, Text: tc.msg}
			if tc.status != 0 {
				body := `{"error":{"message":` + quote(tc.msg) + `,"type":"invalid_request_error"}}`
				err = &failure.HTTPError{Provider: "acme", Stage: pipeline.LLM, Status: tc.status, Body: []byte(body)}
			}
			if c := failure.Classify(err); c.Class != tc.want {
				t.Errorf("class = %s (%s), want %s", c.Class, c.Reason, tc.want)
			}
		})
	}
}

// TestUpstreamWordsRefineA4xx: a source's or a webhook's words refine its
// generic 4xx and say what a failure with no status is; a status that
// already says it, a 5xx and a model endpoint's answer keep theirs.
func TestUpstreamWordsRefineA4xx(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		stage  pipeline.Stage
		status int
		body   string
		text   string
		want   failure.Class
	}{
		"a chat that is not there":         {pipeline.Notify, 400, `{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}`, "", nf},
		"no rights to post":                {pipeline.Notify, 400, `{"ok":false,"error_code":400,"description":"Bad Request: not enough rights to send photos to the chat"}`, "", ad},
		"an account not authorized":        {pipeline.Notify, 0, "", "HTTP 400 error: Unable to create record: Account not authorized to call +10000000000", ad},
		"an archived channel, no status":   {pipeline.Notify, 0, "", "slack error: is_archived", nf},
		"a webhook's rate in words":        {pipeline.Notify, 400, `{"message":"You are sending too many requests, slow down"}`, "", rl},
		"a source's document was removed":  {pipeline.Fetch, 422, `{"error":"The document has been removed by its owner"}`, "", nf},
		"the payload itself stays invalid": {pipeline.Notify, 400, `{"message":"Invalid JSON body"}`, "", si},
		"a 401 needs no words":             {pipeline.Notify, 401, `{"message":"channel not found"}`, "", ad},
		"a 5xx keeps its status":           {pipeline.Notify, 500, `{"message":"permission service not found"}`, "", uu},
		"a model's words are not these":    {pipeline.LLM, 400, `{"error":{"message":"Channel not found"}}`, "", ce},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := &failure.Evidence{Provider: "", Stage: tc.stage, Status: tc.status, Body: []byte(tc.body), Text: tc.text}
			c := failure.Classify(err)
			if c.Class != tc.want {
				t.Errorf("class = %s (%s), want %s", c.Class, c.Reason, tc.want)
			}
			if byStatus := strings.Contains(c.Reason, " default)"); byStatus != c.Default {
				t.Errorf("Default = %v for %q", c.Default, c.Reason)
			}
			// An answer's text names its stage's operation, so it reads
			// alike; a bare text needs the stage it came with.
			if text := failure.Classify(errors.New(err.Error())); tc.status != 0 && text.Class != c.Class {
				t.Errorf("as text (%q): %s, typed %s", err.Error(), text.Class, c.Class)
			}
		})
	}
}

// TestStorageCodes: an S3-compatible store's codes mean the same in any
// SDK's text, with or without an AWS context.
func TestStorageCodes(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]failure.Class{
		"minio.error.NoSuchKey: NoSuchKey: message: The specified key does not exist.":                                              nf,
		"S3Error: S3 operation failed; code: NoSuchBucket, message: The specified bucket does not exist":                            nf,
		"An error occurred (NoSuchUpload) when calling the CompleteMultipartUpload operation: upload not found":                     nf,
		"An error occurred (InvalidAccessKeyId) when calling the GetObject operation: The key does not exist.":                      ad,
		"S3Error: code: RequestTimeTooSkewed, message: The difference between the request time and the server's time is too large.": ad,
		"s3 upload: 503 Slow Down: Please reduce your request rate.":                                                                rl,
		"HTTP Error 503: Slow Down":   rl,
		"AccessDenied: Access Denied": ad,
	} {
		if c := failure.Classify(&failure.Evidence{Stage: pipeline.Fetch, Text: text}); c.Class != want {
			t.Errorf("%q: %s (%s), want %s", text, c.Class, c.Reason, want)
		}
	}
}

// TestClientTransportWordings: every HTTP client's words for a connection
// that failed before or while an answer was read are NETWORK_TIMEOUT, a
// certificate verdict inside the same wrapper stays AUTH_DENIED, and a
// wrapper's words beat an unrelated status the text names.
func TestClientTransportWordings(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]failure.Class{
		"httpx.RemoteProtocolError: peer closed connection without sending complete message body (received 0 bytes, expected 17)":                                                                nt,
		"httpx.ConnectError: All connection attempts failed":                                                                                                                                     nt,
		"aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host example.com:443 ssl:default [Connect call failed]":                                                               nt,
		"aiohttp.client_exceptions.ClientPayloadError: Response payload is not completed: <TransferEncodingError: 400>":                                                                          nt,
		"requests.exceptions.ChunkedEncodingError: ('Connection broken: InvalidChunkLength(got length b'', 0 bytes read)'":                                                                       nt,
		"HTTPSConnectionPool(host='example.com', port=443): Max retries exceeded (Caused by NewConnectionError(': Failed to establish a new connection: [Errno -2] Name or service not known'))": nt,
		"TypeError: fetch failed\n  [cause]: SocketError: other side closed { code: 'UND_ERR_SOCKET' }":                                                                                          nt,
		"TypeError: fetch failed\n  [cause]: HeadersTimeoutError: Headers Timeout Error { code: 'UND_ERR_HEADERS_TIMEOUT' }":                                                                     nt,
		"TypeError: fetch failed\n  cause: Error: unable to verify the first certificate { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }":                                                            ad,
		"java.io.IOException: unexpected end of stream on http://example.com/...":                                                                                                                nt,
		"okhttp3.internal.http2.StreamResetException: stream was reset: INTERNAL_ERROR":                                                                                                          nt,
		"reactor.netty.http.client.PrematureCloseException: Connection prematurely closed DURING response":                                                                                       nt,
		"java.io.IOException: HTTP/1.1 header parser received no bytes":                                                                                                                          nt,
		"System.Net.Http.HttpRequestException: No such host is known. (example.com:443)":                                                                                                         nt,
		"System.IO.IOException: Unable to read data from the transport connection: An existing connection was forcibly closed by the remote host.":                                               nt,
		"System.Net.Http.HttpRequestException: The SSL connection could not be established ---> The remote certificate is invalid because of errors in the certificate chain: UntrustedRoot":     ad,
		"reqwest::Error { kind: Request, url: \"https://example.com/\", source: hyper::Error(Connect, \"error trying to connect: tcp connect error: Connection refused (os error 111)\") }":      nt,
		"error sending request for url (https://example.com/): connection closed before message completed":                                                                                       nt,
		"error sending request for url (https://example.com/): invalid peer certificate: UnknownIssuer":                                                                                          ad,
	} {
		if c := failure.Classify(&failure.Evidence{Stage: pipeline.Fetch, Text: text}); c.Class != want {
			t.Errorf("%q: %s (%s), want %s", text, c.Class, c.Reason, want)
		}
	}
}

// TestTranslatedWordsJoinTheirMeaning: every translation names a meaning
// ModelWords has, and is written as it can match (ASCII lower case).
func TestTranslatedWordsJoinTheirMeaning(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for _, m := range failure.ModelWords {
		if m.Name == "" || names[m.Name] && m.Name != "request" {
			t.Errorf("meaning %v: name %q is empty or taken", m.Class, m.Name)
		}
		names[m.Name] = true
	}
	for _, tr := range failure.TranslatedWords {
		if !names[tr.Meaning] {
			t.Errorf("%s: meaning %q is no ModelWords meaning", tr.Lang, tr.Meaning)
		}
		for _, w := range tr.Words {
			if w != strings.ToLower(w) || strings.TrimSpace(w) != w || w == "" {
				t.Errorf("%s word %q can never match", tr.Lang, w)
			}
		}
	}
	for _, m := range failure.UpstreamWords {
		for _, w := range m.Words {
			if w != strings.ToLower(w) {
				t.Errorf("upstream word %q is not lowercase and can never match", w)
			}
		}
	}
}
