# thinkcap: make build | test | bench | lint | run
GO ?= go
# The whole-run simulation benchmarks run once each; micro-benchmarks run 1 s.
BENCHTIME ?= 1x

.PHONY: build test bench lint run fuzz samples fidelity refit docs

build:
	$(GO) build -o bin/thinkcap ./cmd/thinkcap

# The whole test suite: unit, property, golden and short fuzz-corpus runs.
# One package at a time (-p 1): the load tests' timing checks (the schedule
# lag of sharded runs against an unsharded one, pacing) measure the
# machine, and on two cores the emulator's and fidelity's packages running
# beside them made them measure each other instead.
test:
	$(GO) vet ./...
	$(GO) test -count=1 -p 1 -timeout 8m ./...

# Speed and memory targets (docs/benchmarks.md quotes the latest figures).
bench:
	$(GO) test -run '^$$' -bench 'Simulate' -benchmem -benchtime $(BENCHTIME) -timeout 20m ./sim ./scenario
	$(GO) test -run '^$$' -bench . -skip 'Simulate' -benchmem -timeout 20m ./...

lint:
	@test -z "$$(gofmt -l . | grep -v '^testdata/')" || { gofmt -l . | grep -v '^testdata/'; exit 1; }
	$(GO) vet ./...

run:
	$(GO) run ./cmd/thinkcap simulate

# The measurement corpus (testdata/measured) replayed: the scoreboard as
# markdown (docs/fidelity-scoreboard.md, which docs/fidelity.md links) and its
# plot (docs/fidelity.png). About a minute; no test depends on it.
fidelity:
	$(GO) run ./cmd/thinkcap fidelity --corpus testdata/measured --plot docs/fidelity.png -o markdown > docs/fidelity-scoreboard.md.tmp
	mv docs/fidelity-scoreboard.md.tmp docs/fidelity-scoreboard.md

# The CLI reference (docs/cli), one page per command, generated from the
# commands themselves, and the README's step-fit tables, from the embedded
# step fit; TestCLIReferenceIsCurrent and TestStepFitTablesAreCurrent fail
# when they are stale.
docs:
	$(GO) run ./cmd/thinkcap gendocs --readme README.md docs/cli

# Refit the step-time coefficients per GPU generation on the corpus, then the
# model error (the intervals' model part) with them, and the README's step-fit
# tables (minutes).
refit:
	$(GO) run ./cmd/thinkcap calibrate --corpus testdata/measured --out profiles/data/step-fit.yaml
	$(GO) run ./cmd/thinkcap fidelity --corpus testdata/measured --model-error profiles/data/model-error.yaml > /dev/null
	$(GO) run ./cmd/thinkcap gendocs --readme README.md docs/cli

# Longer fuzzing of every parser (not part of `make test`).
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./workload -run '^$$' -fuzz FuzzRead$$ -fuzztime $(FUZZTIME)
	$(GO) test ./workload -run '^$$' -fuzz FuzzReadOpenAI -fuzztime $(FUZZTIME)
	$(GO) test ./workload -run '^$$' -fuzz FuzzScanNative -fuzztime $(FUZZTIME)
	$(GO) test ./internal/jsonscan -run '^$$' -fuzz FuzzScan -fuzztime $(FUZZTIME)
	$(GO) test ./workload -run '^$$' -fuzz FuzzParseMapping -fuzztime $(FUZZTIME)
	$(GO) test ./workload -run '^$$' -fuzz FuzzReadEval -fuzztime $(FUZZTIME)
	$(GO) test ./workload -run '^$$' -fuzz FuzzParseDist -fuzztime $(FUZZTIME)
	$(GO) test ./workload -run '^$$' -fuzz FuzzEachResult -fuzztime $(FUZZTIME)
	$(GO) test ./workload -run '^$$' -fuzz FuzzReadDataset -fuzztime $(FUZZTIME)
	$(GO) test ./profiles -run '^$$' -fuzz FuzzLoadYAML -fuzztime $(FUZZTIME)
	$(GO) test ./profiles -run '^$$' -fuzz FuzzLoadStepCoefficients -fuzztime $(FUZZTIME)
	$(GO) test ./sim -run '^$$' -fuzz FuzzParseSpeculativeConfig -fuzztime $(FUZZTIME)
	$(GO) test ./sim -run '^$$' -fuzz FuzzParseAcceptance -fuzztime $(FUZZTIME)
	$(GO) test ./sim -run '^$$' -fuzz FuzzParseVLLMVersion -fuzztime $(FUZZTIME)
	$(GO) test ./loadgen -run '^$$' -fuzz FuzzSSE -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./loadgen -run '^$$' -fuzz FuzzChunk -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./loadgen -run '^$$' -fuzz FuzzParseMetrics -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./loadgen -run '^$$' -fuzz FuzzReadTimelineCSV -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./analysis -run '^$$' -fuzz FuzzParseTolerances -fuzztime $(FUZZTIME)
	$(GO) test ./verify -run '^$$' -fuzz FuzzReadRunFiles -fuzztime $(FUZZTIME)
	$(GO) test ./analysis -run '^$$' -fuzz FuzzParseThresholds -fuzztime $(FUZZTIME)
	$(GO) test ./analysis -run '^$$' -fuzz FuzzParseGoodput -fuzztime $(FUZZTIME)
	$(GO) test ./emulator -run '^$$' -fuzz FuzzRequestBody -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./analysis -run '^$$' -fuzz FuzzParseSLOs -fuzztime $(FUZZTIME)
	$(GO) test ./fidelity -run '^$$' -fuzz FuzzReadRecords -fuzztime $(FUZZTIME)

# Rewrite the sample data in testdata/ (a test checks it matches).
samples:
	$(GO) run ./testdata/gen
