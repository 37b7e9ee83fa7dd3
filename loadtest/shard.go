package loadtest

import "github.com/thinkcap/thinkcap/workload"

// applyShard keeps this shard's part of the schedule (Options.Shard): the
// scheduled requests whose place among them is the shard's modulo the
// shard count, with the follow-ups of the requests kept; and it leaves
// scraping to shard 0 unless every shard is to scrape.
func (o *Options) applyShard() {
	sh := o.Shard
	if sh == nil || sh.Count <= 1 {
		return
	}
	keep := map[string]bool{}
	var out []workload.Request
	root := 0
	for _, r := range o.Requests {
		if r.After != "" {
			if keep[r.After] {
				keep[r.ID] = true
				out = append(out, r)
			}
			continue
		}
		if root%sh.Count == sh.Index {
			keep[r.ID] = true
			out = append(out, r)
		}
		root++
	}
	o.Requests = out
	if sh.Index != 0 && !o.ScrapeAllShards {
		o.ScrapeInterval = 0
	}
}
