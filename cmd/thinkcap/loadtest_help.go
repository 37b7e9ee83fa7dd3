package main

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagGroupAnnotation is the pflag annotation that puts a flag under a
// heading of a command's --help.
const flagGroupAnnotation = "thinkcap_flag_group"

// flagGroup is one heading of --help and the flags under it.
type flagGroup struct {
	title string
	flags []string
}

// loadtestFlagGroups are loadtest's more than a hundred flags in the order
// a user meets them, each heading short enough to read on one screen.
var loadtestFlagGroups = []flagGroup{
	{"Target and connection", []string{"url", "model", "endpoint", "api-key-env", "ca-cert", "header", "extra-body", "engine",
		"no-reasoning-parser", "force-length", "header-timeout", "request-timeout", "stall-timeout"}},
	{"Traffic", []string{"workload", "workload-format", "map", "skip-invalid", "traffic", "profiles", "requests", "rate",
		"arrival", "speedup", "prompt-tokens", "think-tokens", "answer-tokens", "seed"}},
	{"Sessions", []string{"turns", "think-time", "history"}},
	{"What-if transforms", []string{"think-budget", "budget-policy", "effort", "escalate",
		"route", "route-model", "route-gpu", "route-tensor-parallel-size", "route-replicas"}},
	{"Dataset (vllm bench serve's prompts)", []string{"dataset-name", "dataset-path", "sharegpt-output-len", "custom-output-len"}},
	{"Pacing", []string{"concurrency", "max-in-flight", "max-rate", "duration", "ramp-up", "warmup"}},
	{"Measurement", []string{"scrape-interval", "progress-interval", "save-text", "percentiles"}},
	{"Output and report", []string{"out", "force", "output", "report", "save-result", "metadata"}},
	{"Checks (exit 1 when one fails)", []string{"no-preflight", "max-consecutive-failures", "max-failure-rate", "threshold", "goodput"}},
	{"Sweep (also: a list of --rate or --concurrency)", []string{"sweep"}},
	{"Sharding", []string{"shard", "start-at", "scrape-all-shards"}},
	{"Kubernetes Job", []string{"k8s-job", "shards", "k8s-image", "k8s-namespace", "k8s-secret", "k8s-pvc", "k8s-start-delay"}},
	{"Prediction (--predict: the simulated deployment)", nil}, // every flag left: --predict's own and the deployment's
}

// groupFlags annotates every flag of fs with its group's title and
// position; flags no group names fall in the last group, whose flag list
// is empty.
func groupFlags(fs *pflag.FlagSet, groups []flagGroup) {
	named := map[string]string{}
	for _, g := range groups {
		for _, name := range g.flags {
			if fs.Lookup(name) == nil {
				panic(fmt.Sprintf("flag group %q names --%s, which is not a flag", g.title, name))
			}
			named[name] = g.title
		}
	}
	position := map[string]int{}
	for i, g := range groups {
		position[g.title] = i
	}
	rest := groups[len(groups)-1].title
	fs.VisitAll(func(f *pflag.Flag) {
		title, ok := named[f.Name]
		if !ok {
			title = rest
		}
		_ = fs.SetAnnotation(f.Name, flagGroupAnnotation, []string{title, strconv.Itoa(position[title])})
	})
}

// groupedUsageTemplate is cobra's usage template for a command without
// subcommands, its local flags printed under their groups' headings
// (flagGroupAnnotation) rather than in one alphabetical list.
const groupedUsageTemplate = `Usage:
  {{.UseLine}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{range flagSections .LocalFlags}}

{{.Title}}:
{{.Usages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}
`

func init() {
	cobra.AddTemplateFunc("flagSections", flagSections)
}

// flagSection is one heading of grouped --help output.
type flagSection struct {
	Title  string
	Usages string
}

// flagSections splits fs by flagGroupAnnotation, the headings in their
// groups' order; a flag without the annotation (cobra's --help) goes
// under "Other flags", last.
func flagSections(fs *pflag.FlagSet) []flagSection {
	type section struct {
		position int
		flags    *pflag.FlagSet
	}
	sections := map[string]*section{}
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		title, position := "Other flags", math.MaxInt
		if a := f.Annotations[flagGroupAnnotation]; len(a) == 2 {
			title = a[0]
			position, _ = strconv.Atoi(a[1])
		}
		if sections[title] == nil {
			sections[title] = &section{position, pflag.NewFlagSet(title, pflag.ContinueOnError)}
		}
		sections[title].flags.AddFlag(f)
	})
	titles := slices.SortedFunc(maps.Keys(sections), func(a, b string) int {
		return cmp.Compare(sections[a].position, sections[b].position)
	})
	out := make([]flagSection, 0, len(titles))
	for _, title := range titles {
		out = append(out, flagSection{Title: title, Usages: sections[title].flags.FlagUsages()})
	}
	return out
}

// useFlagGroups makes cmd's --help print its flags under groups' headings.
func useFlagGroups(cmd *cobra.Command, groups []flagGroup) {
	groupFlags(cmd.Flags(), groups)
	cmd.SetUsageTemplate(groupedUsageTemplate)
}
