package main

import (
	"strings"

	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// config is the redrive function's whole environment, read once by
// loadConfig (the README's "Configuration" table lists every variable).
type config struct {
	Process conf.Process
	// Queues maps each stage to its queue and DLQ URLs
	// (<STAGE>_QUEUE_URL, <STAGE>_DLQ_URL).
	Queues map[work.Stage]replay.Queues
	// ItemsTable is ITEMS_TABLE.
	ItemsTable string
	// ErrorLogTable is ERRORLOG_TABLE: every replay's entry goes there, in
	// the replay's transaction (the item keeps only its last replays).
	ErrorLogTable string
	// IndexShards is ITEM_INDEX_SHARDS: the by-listed-state index's
	// partitions per group, which replays write and read.
	IndexShards int
	// NoticeQueueURL is NOTICE_QUEUE_URL: where the owner's item.failed
	// goes when the backstop schedule completes a dead letter's hand-off;
	// empty sends none.
	NoticeQueueURL string
}

// loadConfig reads and checks the redrive function's environment,
// reporting every missing variable at once.
func loadConfig(getenv func(string) string) (config, error) {
	r := conf.New(getenv)
	c := config{Process: r.Process(), Queues: map[work.Stage]replay.Queues{}}
	for _, st := range work.Stages() {
		p := strings.ToUpper(string(st))
		c.Queues[st] = replay.Queues{Queue: r.Required(p + "_QUEUE_URL"), DLQ: r.Required(p + "_DLQ_URL")}
	}
	c.ItemsTable = r.Required("ITEMS_TABLE")
	c.ErrorLogTable = r.Required("ERRORLOG_TABLE")
	c.IndexShards = r.Int("ITEM_INDEX_SHARDS", store.DefaultIndexShards)
	c.NoticeQueueURL = r.String("NOTICE_QUEUE_URL")
	r.Check("ITEM_INDEX_SHARDS", store.CheckIndexShards(c.IndexShards))
	return c, r.Err("redrive")
}
