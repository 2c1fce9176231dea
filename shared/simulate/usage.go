package simulate

import (
	"math"
	"time"
)

// SQS APIs the simulation counts.
type sqsAPI int

const (
	sqsSendMessage sqsAPI = iota
	sqsSendMessageBatch
	sqsReceiveMessage
	sqsDeleteMessageBatch
	sqsChangeVisibilityBatch
	nSQS
)

var sqsNames = [nSQS]string{"SendMessage", "SendMessageBatch", "ReceiveMessage", "DeleteMessageBatch", "ChangeMessageVisibilityBatch"}

// DynamoDB APIs the simulation counts.
type ddbAPI int

const (
	ddbPutItem ddbAPI = iota
	ddbGetItem
	ddbUpdateItem
	ddbTransactWriteItems
	ddbQuery
	ddbDeleteItem
	ddbScan
	nDDB
)

var ddbNames = [nDDB]string{"PutItem", "GetItem", "UpdateItem", "TransactWriteItems", "Query", "DeleteItem", "Scan"}

// Functions the simulation bills.
const (
	fnFetch = iota
	fnLLM
	fnNotify
	fnScheduler
	nFn
)

var fnNames = [nFn]string{"FetchFunc", "LLMFunc", "NotifyFunc", "SchedulerFunc"}

// LambdaMemoryMB is the memory of every function (template.yaml Globals),
// which the GB-seconds are billed at.
const LambdaMemoryMB = 256

// sqsChunk is SQS's billing unit: every 64 KiB of a request's payload is
// one request.
const sqsChunk = 64 << 10

// meter counts one run's AWS usage.
type meter struct {
	sqsReq    [nSQS]int64
	sqsBilled int64
	ddbReq    [nDDB]int64
	wru, rru  float64
	inv       [nFn]int64
	billedMS  int64
	timeouts  int64
}

func (m *meter) sqs(api sqsAPI, payload int) {
	m.sqsReq[api]++
	m.sqsBilled += int64(max(1, (payload+sqsChunk-1)/sqsChunk))
}

func (m *meter) ddb(api ddbAPI, wru, rru float64) {
	m.ddbReq[api]++
	m.wru += wru
	m.rru += rru
}

func (m *meter) lambda(fn int, d time.Duration) {
	m.inv[fn]++
	m.billedMS += max(1, int64(math.Ceil(float64(d)/float64(time.Millisecond))))
}

// Usage is a run's AWS usage: what the simulated functions and the producer
// asked of SQS, DynamoDB and Lambda. Requests are counted as the real code
// makes them (through counting wrappers of the simulated SQS and of
// state.Memory); DynamoDB capacity units follow DynamoDB's rules (a write is
// one WRU per KB of the larger of the item before and after, a transaction
// twice that, a conditional write that fails still consumes its WRU, an
// eventually consistent read half an RRU per 4 KB).
type Usage struct {
	// SQSRequests counts SQS API calls by name; SQSBilledRequests counts
	// them in 64 KiB chunks of payload, as SQS bills them. Receives of the
	// event source mapping that found the queue empty are not counted (a
	// constant cost of a deployed queue, not of items).
	SQSRequests       map[string]int64 `json:"sqs_requests"`
	SQSBilledRequests int64            `json:"sqs_billed_requests"`
	// DynamoDBRequests counts DynamoDB API calls by name.
	DynamoDBRequests map[string]int64 `json:"dynamodb_requests"`
	// WriteRequestUnits and ReadRequestUnits are on-demand capacity units.
	WriteRequestUnits float64 `json:"write_request_units"`
	ReadRequestUnits  float64 `json:"read_request_units"`
	// LambdaInvocations counts invocations by function; LambdaGBSeconds is
	// their billed duration (1 ms granularity) at LambdaMemoryMB.
	LambdaInvocations map[string]int64 `json:"lambda_invocations"`
	LambdaGBSeconds   float64          `json:"lambda_gb_seconds"`
	// LambdaTimeouts counts invocations that would have run past their
	// function timeout (0 for triage: the runner stops before its deadline).
	LambdaTimeouts int64 `json:"lambda_timeouts"`
}

func (m *meter) usage() Usage {
	u := Usage{SQSRequests: map[string]int64{}, DynamoDBRequests: map[string]int64{}, LambdaInvocations: map[string]int64{},
		SQSBilledRequests: m.sqsBilled, WriteRequestUnits: m.wru, ReadRequestUnits: m.rru, LambdaTimeouts: m.timeouts,
		LambdaGBSeconds: float64(m.billedMS) / 1000 * LambdaMemoryMB / 1024}
	for i, n := range m.sqsReq {
		if n > 0 {
			u.SQSRequests[sqsNames[i]] = n
		}
	}
	for i, n := range m.ddbReq {
		if n > 0 {
			u.DynamoDBRequests[ddbNames[i]] = n
		}
	}
	for i, n := range m.inv {
		if n > 0 {
			u.LambdaInvocations[fnNames[i]] = n
		}
	}
	return u
}

// Requests returns the AWS requests of u: SQS (as billed), DynamoDB and
// Lambda invocations.
func (u Usage) Requests() (sqs, dynamodb, lambda int64) {
	for _, n := range u.DynamoDBRequests {
		dynamodb += n
	}
	for _, n := range u.LambdaInvocations {
		lambda += n
	}
	return u.SQSBilledRequests, dynamodb, lambda
}

// writes counts u's DynamoDB write requests (PutItem, UpdateItem,
// TransactWriteItems, DeleteItem).
func (u Usage) writes() int64 {
	n := int64(0)
	for _, api := range []string{"PutItem", "UpdateItem", "TransactWriteItems", "DeleteItem"} {
		n += u.DynamoDBRequests[api]
	}
	return n
}

// Prices are AWS list prices in US dollars.
type Prices struct {
	// Name and Date say which prices these are and when they applied.
	Name string `json:"name"`
	Date string `json:"date"`
	// SQSPerMillion is the price of a million SQS standard-queue requests
	// (64 KiB chunks).
	SQSPerMillion float64 `json:"sqs_per_million"`
	// WRUPerMillion and RRUPerMillion are DynamoDB on-demand prices.
	WRUPerMillion float64 `json:"wru_per_million"`
	RRUPerMillion float64 `json:"rru_per_million"`
	// LambdaPerMillion is the price of a million invocations; GBSecond the
	// price of one GB-second on arm64.
	LambdaPerMillion float64 `json:"lambda_per_million"`
	GBSecond         float64 `json:"gb_second"`
}

// DefaultPrices are the prices the simulator reports with: us-east-1 list
// prices with DynamoDB on-demand at its rates until 2024-11-01 ($1.25 per
// million WRU, $0.25 per million RRU). DynamoDB is the service triage uses
// and the baselines barely do, so these higher rates are the conservative
// choice for the comparison; CurrentPrices has today's.
var DefaultPrices = Prices{
	Name: "us-east-1 list, DynamoDB on-demand before its 2024-11-01 cut", Date: "2024-10",
	SQSPerMillion: 0.40, WRUPerMillion: 1.25, RRUPerMillion: 0.25, LambdaPerMillion: 0.20, GBSecond: 0.0000133334,
}

// CurrentPrices are us-east-1 list prices since DynamoDB halved its
// on-demand rates on 2024-11-01 ($0.625 per million WRU, $0.125 per million
// RRU); SQS and Lambda arm64 unchanged.
var CurrentPrices = Prices{
	Name: "us-east-1 list since 2024-11-01", Date: "2024-11",
	SQSPerMillion: 0.40, WRUPerMillion: 0.625, RRUPerMillion: 0.125, LambdaPerMillion: 0.20, GBSecond: 0.0000133334,
}

// Cost is a run's AWS cost in US dollars, by service.
type Cost struct {
	// SQS, DynamoDB and Lambda are each service's share; Total their sum.
	SQS      float64 `json:"sqs"`
	DynamoDB float64 `json:"dynamodb"`
	Lambda   float64 `json:"lambda"`
	Total    float64 `json:"total"`
}

// Cost prices u.
func (u Usage) Cost(p Prices) Cost {
	_, _, inv := u.Requests()
	c := Cost{
		SQS:      float64(u.SQSBilledRequests) * p.SQSPerMillion / 1e6,
		DynamoDB: u.WriteRequestUnits*p.WRUPerMillion/1e6 + u.ReadRequestUnits*p.RRUPerMillion/1e6,
		Lambda:   float64(inv)*p.LambdaPerMillion/1e6 + u.LambdaGBSeconds*p.GBSecond,
	}
	c.Total = c.SQS + c.DynamoDB + c.Lambda
	return c
}

// Scale returns c × f.
func (c Cost) Scale(f float64) Cost {
	return Cost{SQS: c.SQS * f, DynamoDB: c.DynamoDB * f, Lambda: c.Lambda * f, Total: c.Total * f}
}
