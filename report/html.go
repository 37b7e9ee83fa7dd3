package report

import (
	"encoding/base64"
	"html/template"
)

// This file is the one HTML page that `verify --report` and `loadtest
// --report` both write: a self-contained file whose style is inline and
// whose plots are embedded, so that it renders the same offline and years
// later, and can be mailed or attached to a ticket on its own. Each command
// fills in its own style rules and content between the page's heading and
// its plots.

// Page is what every HTML report shows around its own content: the title
// (also its heading) and the plots at its end. A command's view embeds it,
// so that its content template reads its own fields and the page's alike.
type Page struct {
	Title string
	Plots []Image
}

// Image is one embedded plot.
type Image struct {
	Title string
	// Src is the src attribute with the PNG as a data URI, built here from
	// base64 (which needs no escaping): marked safe because html/template
	// rejects data: URLs, and would bloat every "+" to "&#43;" as a URL.
	Src template.HTMLAttr
}

// PNGImage embeds a PNG as a plot of the page.
func PNGImage(title string, png []byte) Image {
	src := `src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(png) + `"`
	return Image{Title: title, Src: template.HTMLAttr(src)}
}

// pageTemplate is the page; "style" and "content" are the command's.
var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.4; }
h1 { font-size: 1.5rem; word-break: break-all; }
h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
{{template "style" .}}figure { margin: 1.5rem 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{template "content" .}}{{range .Plots}}<figure><img {{.Src}} alt="{{.Title}}"></figure>
{{end}}</body>
</html>
`))

// NewPageTemplate is the page with a command's style rules (CSS, each rule
// on its own line) and its content (a template run on the command's view,
// which embeds [Page]); it panics on a bad template, as template.Must.
func NewPageTemplate(name, style, content string) *template.Template {
	t := template.Must(pageTemplate.Clone())
	return template.Must(t.New(name).Parse(`{{define "style"}}` + style + `{{end}}{{define "content"}}` + content + `{{end}}`)).Lookup("page")
}
