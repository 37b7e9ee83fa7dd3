package profiles

import (
	"reflect"
	"strings"
	"testing"
)

func TestEncodeTrafficYAMLRoundTrips(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	want := c.Traffic["effort-modes"]
	data, err := EncodeTrafficYAML([]Traffic{want}, "a head comment", func(p, class int, field string) string {
		return want.Classes[class].Name + " " + field
	})
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, s := range []string{"# a head comment", "# medium think_tokens", `think_tokens: "0"`} {
		if !strings.Contains(text, s) {
			t.Errorf("encoded profile lacks %q:\n%s", s, text)
		}
	}
	if strings.Contains(text, "prefix_id") {
		t.Error("empty prefix fields are written")
	}
	var back Catalog
	if err := back.LoadYAML("encoded", data); err != nil {
		t.Fatal(err)
	}
	if got := back.Traffic["effort-modes"]; !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
}
