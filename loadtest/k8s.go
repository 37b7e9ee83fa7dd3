package loadtest

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/workload"
)

// A launch test of a cluster needs more clients than one machine, and the
// users run their clusters on Kubernetes: K8sJob is the sharded load test
// as an Indexed Job, one pod per shard (JOB_COMPLETION_INDEX is its
// --shard), every pod holding its schedule until one start time, the API
// key from a Secret, the log from a ConfigMap, each run directory written
// to a shared volume for thinkcap merge.

// K8sJobOptions describe the Job.
type K8sJobOptions struct {
	Name      string // --k8s-job: the Job's name, and the stem of its Secret, ConfigMap and volume claim
	Namespace string // --k8s-namespace ("": the kubectl context's)
	Shards    int    // --shards: pods, each a shard
	Image     string // --k8s-image: an image with thinkcap as its entry point
	// Secret holds the API key under the key "api-key" (--k8s-secret;
	// default NAME-api-key); APIKeyEnv is the variable the pods read it
	// from (--api-key-env). Claim is the volume claim the run directories
	// go to (--k8s-pvc; default NAME-results), mounted at /results.
	Secret, APIKeyEnv, Claim string
	// StartDelay is how far ahead of now the shards start (--k8s-start-delay):
	// time for every pod to be scheduled, pull its image and warm up.
	StartDelay time.Duration
	// Args is the load test's command line for every pod, without the
	// Job's flags, --out, --shard and --start-at (the Job sets them); a
	// --workload among them is read from the ConfigMap NAME-workload.
	Args []string
	// Streams and TokensPerS are the whole test's expected concurrent
	// streams and token events per second: each pod's resource requests
	// come from its share at the measured per-stream cost.
	Streams    int
	TokensPerS float64
}

// SizeFor sets Streams and TokensPerS from the schedule the pods share:
// the streams expected in flight (open loop, closed loop or capped) and
// the output tokens a second over the schedule's span.
func (o *K8sJobOptions) SizeFor(reqs []workload.Request, concurrency, maxInFlight int) {
	span, out := 0.0, 0.0
	for i := range reqs {
		span = max(span, reqs[i].ArrivalS)
		out += float64(reqs[i].OutputTokens())
	}
	o.TokensPerS = 0
	if span > 0 {
		o.TokensPerS = out / span
	}
	o.Streams = loadgen.ExpectedConcurrency(reqs, concurrency, maxInFlight)
}

// Measured cost of a client: one thinkcap process held 5,000 streams in
// 400 MB and 480,000 token events per second on two cores, against a
// loopback server answering at once (the measurement quoted in docs/loadtest.md's
// shards section): about 80 KB a stream and 240,000 events a core-second.
const (
	bytesPerStream   = 80 << 10
	eventsPerCoreSec = 240_000
	baseMemory       = 128 << 20
)

// K8sJob is the Job for o, its shards starting StartDelay after now.
func K8sJob(o K8sJobOptions, now time.Time) (*K8sJobManifest, error) {
	if o.Name == "" || strings.ToLower(o.Name) != o.Name || strings.ContainsAny(o.Name, " _./") {
		return nil, fmt.Errorf("--k8s-job %q: a Kubernetes name: lower case letters, digits and '-'", o.Name)
	}
	if o.Shards < 1 {
		return nil, fmt.Errorf("--shards must be at least 1, got %d", o.Shards)
	}
	if o.Secret == "" {
		o.Secret = o.Name + "-api-key"
	}
	if o.Claim == "" {
		o.Claim = o.Name + "-results"
	}
	if o.APIKeyEnv == "" {
		o.APIKeyEnv = "OPENAI_API_KEY"
	}
	start := now.Add(o.StartDelay).UTC().Truncate(time.Second)
	args, workload := jobArgs(o.Args)
	args = append(args, "--shard", "$(JOB_COMPLETION_INDEX)/"+strconv.Itoa(o.Shards),
		"--start-at", start.Format(time.RFC3339), "--out", "/results/shard-$(JOB_COMPLETION_INDEX)")

	perPod := max(o.Streams/o.Shards, 1)
	memory := int64(baseMemory + perPod*bytesPerStream)
	cpuMilli := int64(math.Ceil(1000 * max(o.TokensPerS/float64(o.Shards)/eventsPerCoreSec, 0.25)))
	container := k8sContainer{
		Name:  "thinkcap",
		Image: o.Image,
		Args:  args,
		Env: []k8sEnvVar{{
			Name:      o.APIKeyEnv,
			ValueFrom: k8sEnvSource{SecretKeyRef: k8sSecretKey{Name: o.Secret, Key: "api-key", Optional: false}},
		}},
		Resources: k8sResources{
			Requests: map[string]string{"cpu": milliQuantity(cpuMilli), "memory": byteQuantity(memory)},
			Limits:   map[string]string{"memory": byteQuantity(2 * memory)},
		},
		VolumeMounts: []k8sVolumeMount{{Name: "results", MountPath: "/results"}},
	}
	volumes := []k8sVolume{{Name: "results", PersistentVolumeClaim: &k8sClaimRef{ClaimName: o.Claim}}}
	if workload {
		container.VolumeMounts = append(container.VolumeMounts, k8sVolumeMount{Name: "workload", MountPath: "/workload", ReadOnly: true})
		volumes = append(volumes, k8sVolume{Name: "workload", ConfigMap: &k8sConfigMapRef{Name: o.Name + "-workload"}})
	}
	return &K8sJobManifest{
		APIVersion: "batch/v1", Kind: "Job",
		Metadata: k8sObjectMeta{Name: o.Name, Namespace: o.Namespace, Labels: map[string]string{"app.kubernetes.io/name": "thinkcap-loadtest"}},
		Spec: k8sJobSpec{
			Completions: o.Shards, Parallelism: o.Shards, CompletionMode: "Indexed",
			// A shard that fails is a result (its run directory says why),
			// not a reason to send its requests twice.
			BackoffLimit: 0,
			Template: k8sPodTemplate{
				Metadata: k8sObjectMeta{Labels: map[string]string{"app.kubernetes.io/name": "thinkcap-loadtest", "job-name": o.Name}},
				Spec: k8sPodSpec{
					RestartPolicy: "Never",
					Containers:    []k8sContainer{container},
					Volumes:       volumes,
				},
			},
		},
	}, nil
}

// jobArgs rewrites a --workload path to the ConfigMap's mount and reports
// whether there was one.
func jobArgs(args []string) ([]string, bool) {
	out := append([]string(nil), args...)
	workload := false
	for i := 0; i < len(out); i++ {
		a := out[i]
		switch {
		case (a == "--workload") && i+1 < len(out):
			out[i+1] = "/workload/" + filepath.Base(out[i+1])
			workload = true
			i++
		case strings.HasPrefix(a, "--workload="):
			out[i] = "--workload=/workload/" + filepath.Base(strings.TrimPrefix(a, "--workload="))
			workload = true
		}
	}
	return out, workload
}

// WriteK8sJob writes the Job as YAML, after comments giving the whole flow.
func WriteK8sJob(w io.Writer, job *K8sJobManifest, o K8sJobOptions) error {
	b, err := yaml.Marshal(job)
	if err != nil {
		return err
	}
	secret, claim := o.Secret, o.Claim
	if secret == "" {
		secret = o.Name + "-api-key"
	}
	if claim == "" {
		claim = o.Name + "-results"
	}
	fmt.Fprintf(w, `# thinkcap loadtest as a Kubernetes Indexed Job: %d shards starting together.
# Before applying:
#   kubectl create secret generic %s --from-literal=api-key="$%s"
#   a ReadWriteMany PersistentVolumeClaim named %s (the shards' run directories)
`, o.Shards, secret, envOr(o.APIKeyEnv), claim)
	if _, hasWorkload := jobArgs(o.Args); hasWorkload {
		fmt.Fprintf(w, "#   kubectl create configmap %s-workload --from-file=<your --workload file>\n", o.Name)
	}
	fmt.Fprintf(w, `# Then:
#   kubectl apply -f job.yaml
#   kubectl wait --for=condition=complete --timeout=24h job/%s
#   copy /results/shard-* from the claim (a pod mounting it and kubectl cp), then:
#   thinkcap merge shard-* --out run && thinkcap verify run
`, o.Name)
	_, err = w.Write(b)
	return err
}

func envOr(name string) string {
	if name == "" {
		return "OPENAI_API_KEY"
	}
	return name
}

// PrintK8sJob writes the load test of o to w as the Job k describes,
// sending nothing: the schedule made as Run would make it, the pods sized
// for it (SizeFor), the shards starting StartDelay after now.
func PrintK8sJob(w io.Writer, o Options, k K8sJobOptions, now time.Time) error {
	if err := o.loadRequests(); err != nil {
		return err
	}
	k.SizeFor(o.Requests, o.Concurrency, o.MaxInFlight)
	job, err := K8sJob(k, now)
	if err != nil {
		return inputerr.New(err)
	}
	return WriteK8sJob(w, job, k)
}
