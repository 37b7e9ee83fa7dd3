package report

import (
	"strings"
	"testing"
)

// TestPageTemplate: a command's page has its title as title and heading,
// its own style rules among the shared ones, its content, then every plot
// embedded as a data URI whose "+" survives unescaped; the title is
// escaped.
func TestPageTemplate(t *testing.T) {
	type view struct {
		Page
		Note string
	}
	tmpl := NewPageTemplate("test", "td.mine { color: red; }\n", "<p>{{.Note}}</p>\n")
	var b strings.Builder
	v := view{Page: Page{Title: "thinkcap test: <run>", Plots: []Image{PNGImage("CDF", []byte{0xfb, 0xff})}}, Note: "a & b"}
	if err := tmpl.Execute(&b, v); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<title>thinkcap test: &lt;run&gt;</title>",
		"<h1>thinkcap test: &lt;run&gt;</h1>\n<p>a &amp; b</p>\n<figure>",
		"h2 { font-size",
		"td.mine { color: red; }\nfigure { margin",
		`<img src="data:image/png;base64,+/8=" alt="CDF">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
}
