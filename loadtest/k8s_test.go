package loadtest

import (
	"bytes"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// TestK8sJobIsAJob: the manifest decodes strictly into k8s.io/api's
// batch/v1 Job, and that Job printed back is the manifest byte for byte,
// so the local types say nothing the API's types would not.
func TestK8sJobIsAJob(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, o := range []K8sJobOptions{
		{Name: "a", Shards: 1, Image: "img"},
		{Name: "launch-test", Namespace: "ns", Shards: 8, Image: "r/t:v1", APIKeyEnv: "K", StartDelay: 3 * time.Minute,
			Args: []string{"loadtest", "--workload", "x/y.jsonl", "--speedup=2"}, Streams: 5000, TokensPerS: 480000},
		{Name: "b", Shards: 3, Secret: "s", Claim: "c", Args: []string{"--workload=a/b"}, Streams: 64 * 3, TokensPerS: 1e7},
		{Name: "c", Shards: 2, Streams: 1 << 20, TokensPerS: 4.8e8},
		{Name: "e", Shards: 1, Streams: 64, TokensPerS: 960000},
	} {
		job, err := K8sJob(o, now)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := WriteK8sJob(&out, job, o); err != nil {
			t.Fatal(err)
		}
		manifest := out.String()[strings.Index(out.String(), "apiVersion:"):]
		var typed batchv1.Job
		if err := yaml.UnmarshalStrict([]byte(manifest), &typed); err != nil {
			t.Fatalf("%s: not a Job: %v\n%s", o.Name, err, manifest)
		}
		again, err := yaml.Marshal(&typed)
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != manifest {
			t.Errorf("%s: the API's Job prints\n%s\nthe manifest is\n%s", o.Name, again, manifest)
		}
		if typed.Spec.CompletionMode == nil || *typed.Spec.CompletionMode != batchv1.IndexedCompletion {
			t.Errorf("%s: completion mode %v", o.Name, typed.Spec.CompletionMode)
		}
	}
}

// TestQuantitySpelling: byteQuantity and milliQuantity spell a quantity as
// the API's resource.Quantity does.
func TestQuantitySpelling(t *testing.T) {
	for _, n := range []int64{0, 1, 999, 1000, 1023, 1024, 1536, 4096, 1000000, 1 << 20, 3 << 20, 131152 << 10,
		82176 << 20, 5 << 30, 7 << 40, 1 << 50, 1 << 60, 1<<50 + 1024} {
		if got, want := byteQuantity(n), resource.NewQuantity(n, resource.BinarySI).String(); got != want {
			t.Errorf("byteQuantity(%d) = %s, the API spells %s", n, got, want)
		}
	}
	for _, m := range []int64{0, 1, 250, 999, 1000, 1500, 2000, 13889, 1000000, 1234000, 5000000000} {
		if got, want := milliQuantity(m), resource.NewMilliQuantity(m, resource.DecimalSI).String(); got != want {
			t.Errorf("milliQuantity(%d) = %s, the API spells %s", m, got, want)
		}
	}
}
