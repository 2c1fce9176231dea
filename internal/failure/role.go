package failure

import (
	"github.com/triagehq/triage/internal/work"
)

// Role is what kind of upstream answered, which gives a failure its
// default when nothing more specific is known (docs/design.md "The role of
// the upstream", "Defaults by role").
type Role string

const (
	// RoleModel is a model endpoint: any LLM API, whatever its wire format.
	RoleModel Role = "model"
	// RoleSource is what the fetch stage reads: an article host, a
	// document store.
	RoleSource Role = "source"
	// RoleWebhook is a notification receiver: Slack, Discord, Teams, a
	// customer endpoint.
	RoleWebhook Role = "webhook"
	// RoleAWS is an AWS API other than a model (DynamoDB, SQS, S3, KMS,
	// STS, SSM, …).
	RoleAWS Role = "aws"
	// RoleUnknown is none of the above: nothing says who answered.
	RoleUnknown Role = "unknown"
)

// Roles lists every role, in the order of docs/design.md's table.
func Roles() []Role { return []Role{RoleModel, RoleSource, RoleWebhook, RoleAWS, RoleUnknown} }

// Gemini is Google's generateContent wire format: the Gemini API and, in the
// same format, Vertex AI.
const Gemini Provider = "gemini"

// Vertex is Vertex AI's generateContent, Gemini's wire format on Google
// Cloud.
const Vertex Provider = "vertex"

// Dialects lists the wire formats triage reads model answers and errors
// in: OpenAI chat completions (the default of every model endpoint triage
// does not know), Azure OpenAI, Anthropic Messages, Bedrock Converse and
// Google's generateContent.
func Dialects() []Provider { return []Provider{OpenAI, Azure, Anthropic, Bedrock, Gemini} }

// KnownProviders maps provider names, folded (lower case, without '-',
// '_', '.' or spaces), to what triage knows of them. A name that is not
// here is still accepted everywhere: it is judged by the rest of the
// evidence and by the stage (docs/design.md "The role of the upstream").
// Model vendors not listed speak the OpenAI-compatible dialect at the llm
// stage; adding a name here only lets the name alone say so.
var KnownProviders = map[string]struct {
	Role    Role
	Dialect Provider
}{
	// the dialects
	"openai": {RoleModel, OpenAI}, "azure": {RoleModel, Azure}, "azureopenai": {RoleModel, Azure}, "azureai": {RoleModel, Azure},
	"anthropic": {RoleModel, Anthropic}, "claude": {RoleModel, Anthropic},
	"bedrock": {RoleModel, Bedrock}, "amazonbedrock": {RoleModel, Bedrock}, "awsbedrock": {RoleModel, Bedrock}, "bedrockruntime": {RoleModel, Bedrock},
	"gemini": {RoleModel, Gemini}, "google": {RoleModel, Gemini}, "googleai": {RoleModel, Gemini}, "googlegenai": {RoleModel, Gemini},
	"genai": {RoleModel, Gemini}, "aistudio": {RoleModel, Gemini}, "googleaistudio": {RoleModel, Gemini},
	"vertex": {RoleModel, Gemini}, "vertexai": {RoleModel, Gemini}, "googlevertex": {RoleModel, Gemini}, "googlevertexai": {RoleModel, Gemini},
	// OpenAI-compatible APIs, servers and proxies
	"groq": {RoleModel, OpenAI}, "deepseek": {RoleModel, OpenAI}, "mistral": {RoleModel, OpenAI}, "mistralai": {RoleModel, OpenAI},
	"together": {RoleModel, OpenAI}, "togetherai": {RoleModel, OpenAI}, "fireworks": {RoleModel, OpenAI}, "fireworksai": {RoleModel, OpenAI},
	"openrouter": {RoleModel, OpenAI}, "xai": {RoleModel, OpenAI}, "grok": {RoleModel, OpenAI}, "perplexity": {RoleModel, OpenAI},
	"vllm": {RoleModel, OpenAI}, "hostedvllm": {RoleModel, OpenAI}, "ollama": {RoleModel, OpenAI}, "lmstudio": {RoleModel, OpenAI},
	"litellm": {RoleModel, OpenAI}, "llamacpp": {RoleModel, OpenAI}, "localai": {RoleModel, OpenAI}, "tgi": {RoleModel, OpenAI},
	"huggingface": {RoleModel, OpenAI}, "hf": {RoleModel, OpenAI}, "cohere": {RoleModel, OpenAI}, "ai21": {RoleModel, OpenAI},
	"cerebras": {RoleModel, OpenAI}, "sambanova": {RoleModel, OpenAI}, "deepinfra": {RoleModel, OpenAI}, "anyscale": {RoleModel, OpenAI},
	"nvidia": {RoleModel, OpenAI}, "nvidianim": {RoleModel, OpenAI}, "nim": {RoleModel, OpenAI}, "moonshot": {RoleModel, OpenAI},
	"kimi": {RoleModel, OpenAI}, "qwen": {RoleModel, OpenAI}, "dashscope": {RoleModel, OpenAI}, "zhipu": {RoleModel, OpenAI},
	"minimax": {RoleModel, OpenAI}, "novita": {RoleModel, OpenAI}, "hyperbolic": {RoleModel, OpenAI}, "nebius": {RoleModel, OpenAI},
	"friendli": {RoleModel, OpenAI}, "friendliai": {RoleModel, OpenAI}, "replicate": {RoleModel, OpenAI}, "databricks": {RoleModel, OpenAI},
	"watsonx": {RoleModel, OpenAI}, "cloudflareworkersai": {RoleModel, OpenAI}, "workersai": {RoleModel, OpenAI},
	"githubmodels": {RoleModel, OpenAI}, "portkey": {RoleModel, OpenAI}, "helicone": {RoleModel, OpenAI}, "llm": {RoleModel, OpenAI},
	"model": {RoleModel, OpenAI}, "sagemaker": {RoleModel, OpenAI}, "predibase": {RoleModel, OpenAI}, "lepton": {RoleModel, OpenAI},
	"baidu": {RoleModel, OpenAI}, "qianfan": {RoleModel, OpenAI}, "baiduqianfan": {RoleModel, OpenAI}, "ernie": {RoleModel, OpenAI},
	"wenxin": {RoleModel, OpenAI}, "wenxinworkshop": {RoleModel, OpenAI},
	// notification receivers
	"webhook": {RoleWebhook, ""}, "slack": {RoleWebhook, ""}, "discord": {RoleWebhook, ""}, "teams": {RoleWebhook, ""},
	"msteams": {RoleWebhook, ""}, "mattermost": {RoleWebhook, ""}, "zapier": {RoleWebhook, ""}, "googlechat": {RoleWebhook, ""},
	"pagerduty": {RoleWebhook, ""}, "opsgenie": {RoleWebhook, ""}, "notify": {RoleWebhook, ""},
	"rocketchat": {RoleWebhook, ""}, "telegram": {RoleWebhook, ""}, "zulip": {RoleWebhook, ""}, "webex": {RoleWebhook, ""},
	"ntfy": {RoleWebhook, ""}, "pushover": {RoleWebhook, ""}, "twilio": {RoleWebhook, ""}, "dingtalk": {RoleWebhook, ""},
	"wechat": {RoleWebhook, ""}, "wecom": {RoleWebhook, ""}, "feishu": {RoleWebhook, ""}, "lark": {RoleWebhook, ""},
	// mailers: a notice's receivers too (SES is an AWS API, but its role here is delivery)
	"ses": {RoleWebhook, ""}, "sendgrid": {RoleWebhook, ""}, "mailgun": {RoleWebhook, ""}, "postmark": {RoleWebhook, ""},
	"smtp": {RoleWebhook, ""}, "mail": {RoleWebhook, ""}, "email": {RoleWebhook, ""},
	// AWS APIs
	"aws": {RoleAWS, ""}, "amazon": {RoleAWS, ""}, "dynamodb": {RoleAWS, ""}, "sqs": {RoleAWS, ""}, "s3": {RoleAWS, ""},
	"kms": {RoleAWS, ""}, "sts": {RoleAWS, ""}, "ssm": {RoleAWS, ""}, "secretsmanager": {RoleAWS, ""}, "sns": {RoleAWS, ""},
	"lambda": {RoleAWS, ""}, "eventbridge": {RoleAWS, ""}, "cloudwatch": {RoleAWS, ""}, "iam": {RoleAWS, ""},
	// no opinion: the stage says (an article host at fetch)
	"http": {"", ""}, "https": {"", ""}, "source": {RoleSource, ""}, "article": {RoleSource, ""}, "fetch": {RoleSource, ""},
}

// foldName folds a provider name for KnownProviders: ASCII lower case,
// without '-', '_', '.', '/' or spaces ("Together_AI", "together-ai" and
// "togetherai" are one name). It returns "" for a name longer than 64
// bytes, which no table holds.
func foldName(p string) string {
	if len(p) > 64 {
		return ""
	}
	var buf [64]byte
	b := buf[:0]
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		case c == '-' || c == '_' || c == '.' || c == ' ' || c == '/':
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// lookupProvider is what KnownProviders says of p. It allocates nothing
// for the names triage's own clients use.
func lookupProvider(p Provider) (Role, Provider, bool) {
	switch p { // the hot path: triage's own clients
	case OpenAI, Azure, Anthropic, Bedrock, Gemini:
		return RoleModel, p, true
	case Vertex:
		return RoleModel, Gemini, true
	case Webhook:
		return RoleWebhook, "", true
	case AWS:
		return RoleAWS, "", true
	case HTTP, "":
		return "", "", p == HTTP
	}
	k, ok := KnownProviders[foldName(string(p))]
	return k.Role, k.Dialect, ok
}

// Role returns the role p's name alone implies: RoleModel for a model
// vendor, RoleWebhook, RoleAWS, RoleSource; RoleUnknown for a name that
// says nothing (HTTP, an unknown name), which the stage then decides.
func (p Provider) Role() Role {
	if r, _, _ := lookupProvider(p); r != "" {
		return r
	}
	return RoleUnknown
}

// Dialect returns the wire format p's model answers and errors are read
// in: one of Dialects for a known model vendor (OpenAI for the
// OpenAI-compatible ones), "" for a name that is not a known model vendor.
// RoleOf decides whether an unknown name is a model endpoint; when it is,
// it speaks the OpenAI-compatible dialect.
func (p Provider) Dialect() Provider {
	_, d, _ := lookupProvider(p)
	return d
}

// Known reports whether KnownProviders (or triage's own names) hold p.
func (p Provider) Known() bool {
	_, _, ok := lookupProvider(p)
	return ok
}

// Mailers are the providers that deliver mail: their errors' reply codes
// are SMTP's (SMTPReplies), whatever the text around them says; a relay's
// API (SES, SendGrid, Mailgun, Postmark) passes the receiving server's
// reply on. Names are folded as KnownProviders' are.
var Mailers = map[string]bool{
	"smtp": true, "mail": true, "email": true, "ses": true, "sendgrid": true, "mailgun": true, "postmark": true,
}

// Mailer reports whether p is a mailer (Mailers).
func (p Provider) Mailer() bool {
	return p != "" && Mailers[foldName(string(p))]
}

// RoleOf is the role of the upstream that failed, from the most specific
// evidence of it: a provider name that implies a role, then the stage (the
// llm stage calls models, fetch reads sources, notify calls webhooks), then
// modelShaped (an answer or an error body only a model API writes).
func RoleOf(p Provider, stage work.Stage, modelShaped bool) Role {
	if r := p.Role(); r != RoleUnknown {
		return r
	}
	switch stage {
	case work.LLM:
		return RoleModel
	case work.Fetch:
		return RoleSource
	case work.Notify:
		return RoleWebhook
	}
	if modelShaped {
		return RoleModel
	}
	return RoleUnknown
}

// stageOp is the operation the text form of an error names for a stage,
// so that a stage survives the round trip through an error's text:
// HTTPError.Error() and Evidence.Error() write it when no Op is given.
var stageOp = map[work.Stage]string{
	work.Fetch:  "GET article",
	work.LLM:    "chat.completions",
	work.Notify: "POST webhook",
}

// opStages maps the operations triage's clients (and the SDKs) name in an
// error's text to the stage, hence the role, they belong to.
var opStages = map[string]work.Stage{
	"get article": work.Fetch, "get": work.Fetch,
	"chat.completions": work.LLM, "completions": work.LLM, "messages": work.LLM, "responses": work.LLM,
	"embeddings": work.LLM, "generatecontent": work.LLM, "streamgeneratecontent": work.LLM,
	"converse": work.LLM, "conversestream": work.LLM, "invokemodel": work.LLM,
	"post webhook": work.Notify,
}

// opStage is the stage an operation's name implies, or "".
func opStage(op string) work.Stage {
	if op == "" || len(op) > 40 {
		return ""
	}
	if st, ok := opStages[op]; ok {
		return st
	}
	var buf [40]byte
	b := buf[:len(op)]
	for i := 0; i < len(op); i++ {
		b[i] = lowerASCII(op[i])
	}
	return opStages[string(b)] // no allocation: a map lookup by converted bytes
}
