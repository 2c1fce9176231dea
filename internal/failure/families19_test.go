package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundNineteen holds members of the families holdout round
// 19 showed (cmd/triage/testdata/corpus/README.md), in wordings other than
// the round's, and what the new rules must leave alone.
func TestFamiliesOfRoundNineteen(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		// a receiver's 200 whose body reports the failure
		"WeCom's errcode beside a 200":             {failure.Evidence{Provider: "wecom", Stage: work.Notify, Status: 200, Body: []byte(`{"errcode":40014,"errmsg":"invalid access_token, hint: [1690000000_xx]"}`)}, ad},
		"a robot's errno and message beside a 200": {failure.Evidence{Provider: "webhook", Stage: work.Notify, Status: 200, Body: []byte(`{"errno":45009,"message":"api freq out of limit"}`)}, rl},
		"a negative code beside a 200":             {failure.Evidence{Provider: "feishu", Stage: work.Notify, Status: 200, Body: []byte(`{"code":-1,"msg":"bad signature, check the secret"}`)}, ad},
		"a source's code beside a 200":             {failure.Evidence{Stage: work.Fetch, Status: 200, Body: []byte(`{"code":10404,"msg":"article does not exist"}`)}, nf},
		"a zero errcode is a success":              {failure.Evidence{Provider: "dingtalk", Stage: work.Notify, Status: 200, Body: []byte(`{"errcode":0,"errmsg":"ok"}`)}, failure.Unknown},
		"a code with no message says nothing":      {failure.Evidence{Provider: "lark", Stage: work.Notify, Status: 200, Body: []byte(`{"code":19021}`)}, failure.Unknown},
		// a certificate out of its validity period
		"the JDK's expired certificate":       {failure.Evidence{Stage: work.Fetch, Text: "javax.net.ssl.SSLHandshakeException: java.security.cert.CertificateExpiredException: NotAfter: Tue Jun 23 23:28:00 UTC 2015"}, ad},
		"the JDK's not-yet-valid certificate": {failure.Evidence{Stage: work.Fetch, Text: "sun.security.validator.ValidatorException: java.security.cert.CertificateNotYetValidException: NotBefore: Mon Jan 01 00:00:00 UTC 2035"}, ad},
		"OpenSSL's not yet valid":             {failure.Evidence{Stage: work.Fetch, Text: "SSL routines::certificate verify error: certificate is not yet valid"}, ad},
		"Node's not-yet-valid code":           {failure.Evidence{Provider: "slack", Stage: work.Notify, Text: "RequestError: CERT_NOT_YET_VALID"}, ad},
		"Chromium's name without net::":       {failure.Evidence{Stage: work.Fetch, Text: "page.goto failed: ERR_CERT_AUTHORITY_INVALID at https://feeds.example.org/"}, ad},
		"Firefox's pkix code":                 {failure.Evidence{Stage: work.Fetch, Text: "Error code: MOZILLA_PKIX_ERROR_NOT_YET_VALID_CERTIFICATE"}, ad},
		"webpki's CertExpired":                {failure.Evidence{Stage: work.Fetch, Text: "error sending request: invalid peer certificate contents: CertExpired"}, ad},
		"an expired TLS certificate in prose": {failure.Evidence{Provider: "webhook", Stage: work.Notify, Text: "delivery failed: the receiver presented an expired TLS certificate"}, ad},
		// SMTP replies by their code
		"a 421 greeting from a mailer":            {failure.Evidence{Provider: "smtp", Stage: work.Notify, Text: "SMTPConnectError: (421, b'mx.example.org Service not available, closing transmission channel')"}, uu},
		"a 450 at a line's start from a mailer":   {failure.Evidence{Provider: "email", Stage: work.Notify, Text: "send failed:\n450 Requested mail action not taken: try later"}, uu},
		"a 452 in an SMTP text":                   {failure.Evidence{Stage: work.Notify, Text: "smtp: server replied\n452 Insufficient system storage"}, uu},
		"a 421 that names the rate":               {failure.Evidence{Provider: "smtp", Stage: work.Notify, Text: "421 Too many messages, rate limited, try again later"}, rl},
		"a 530 from a mailer":                     {failure.Evidence{Provider: "smtp", Stage: work.Notify, Text: "530 Must issue a STARTTLS command first"}, ad},
		"a 534 from a mailer":                     {failure.Evidence{Provider: "mail", Stage: work.Notify, Text: "534 Please log in with your web browser and then try again"}, ad},
		"a 550 mailbox from a mailer":             {failure.Evidence{Provider: "smtp", Stage: work.Notify, Text: "550 Requested action not taken: mailbox unavailable"}, nf},
		"a 451 is no legal block from a mailer":   {failure.Evidence{Provider: "postmark", Stage: work.Notify, Text: "451 Temporary local problem - please try later"}, uu},
		"a webhook's own 451 stays HTTP's":        {failure.Evidence{Provider: "webhook", Stage: work.Notify, Text: "POST hook: 451 Unavailable For Legal Reasons"}, failure.ContentPolicy},
		"a line-start number with no mail is not": {failure.Evidence{Stage: work.Fetch, Text: "feed parse failed at item\n451 items skipped"}, failure.Unknown},
		// a peer that closed the connection
		"a connection closed by peer":     {failure.Evidence{Stage: work.Fetch, Text: "ssh_exchange: Connection closed by peer while reading feed"}, nt},
		"closed by the remote host":       {failure.Evidence{Provider: "ntfy", Stage: work.Notify, Text: "publish: connection closed by the remote host"}, nt},
		"a peer that closed the stream":   {failure.Evidence{Provider: "groq", Stage: work.LLM, Text: "APIConnectionError: peer closed the stream unexpectedly"}, nt},
		"disconnected by the remote peer": {failure.Evidence{Stage: work.Fetch, Text: "websocket: disconnected by the remote peer"}, nt},
		// a 2xx whose error object names an error status
		"a gateway's 200 carrying a 503": {failure.Evidence{Provider: "requesty", Stage: work.LLM, Status: 200, Body: []byte(`{"choices":[],"error":{"message":"upstream unavailable","code":503}}`)}, uu},
		// an overload's words at a 429: the design's precedence reads the
		// definite phrase before the status
		"a 429 that says overloaded": {failure.Evidence{Provider: "zhipu", Stage: work.LLM, Status: 429, Body: []byte(`{"error":{"message":"The service is overloaded, please try again later","type":"server_overloaded"}}`)}, uu},
	})
}

// TestErrorObjectBesideA2xxKeepsTheAnsweredStatus: a gateway's 200 whose
// error object carries an HTTP error status is judged by that status, and
// the evidence an operator reads still says what was answered — the 200,
// with the status the body named as its code.
func TestErrorObjectBesideA2xxKeepsTheAnsweredStatus(t *testing.T) {
	t.Parallel()
	c := failure.Classify(&failure.HTTPError{Provider: "openrouter", Op: "chat", Status: 200,
		Body: []byte(`{"choices":[],"error":{"message":"Provider returned error","code":429}}`)})
	if c.Class != rl || c.Status != 200 || c.Code != "429" {
		t.Fatalf("got %s status %d code %q, want %s status 200 code \"429\"", c.Class, c.Status, c.Code, rl)
	}
}
