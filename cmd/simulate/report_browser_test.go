package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The real-browser test of the HTML reports (TestReportsHTML/browser):
// set LOOPSIM_BROWSER=1 (and LOOPSIM_CHROMIUM to a binary when it is not
// chromium on PATH); .ci/run installs Debian's chromium and sets both.
// With -screenshots the pictures go to docs/img (the README's);
// otherwise to a temporary folder.
//
//	LOOPSIM_BROWSER=1 go test ./cmd/simulate -run TestReportsHTML -screenshots
var screenshots = flag.Bool("screenshots", false, "TestReportsHTML/browser: write the reports' screenshots to docs/img")

// screenshotDir is where -screenshots writes, from this package.
const screenshotDir = "../../docs/img"

// chromium is the headless browser's binary; the test skips, saying
// why, where there is none or LOOPSIM_BROWSER is not set.
func chromium(t *testing.T) string {
	t.Helper()
	if os.Getenv("LOOPSIM_BROWSER") == "" {
		t.Skip("set LOOPSIM_BROWSER=1 to open the HTML reports in headless Chromium (.ci/run does, installing Debian's chromium with .ci/chromium-up)")
	}
	if bin := os.Getenv("LOOPSIM_CHROMIUM"); bin != "" {
		return bin
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if bin, err := exec.LookPath(name); err == nil {
			return bin
		}
	}
	t.Skip("LOOPSIM_BROWSER is set but no chromium, chromium-browser or google-chrome is on PATH (apt-get install chromium)")
	return ""
}

// browserCheck is a script the test adds to a copy of a report (the
// report itself is unchanged): it sorts every table by a column twice
// (ascending, then descending), checks the order the way a reader
// reads it (numbers by value where the column is numeric, else text),
// puts the rows back in the report's order, and writes what it found
// into the page for --dump-dom.
const browserCheck = `<script>
window.addEventListener("load", function () {
  var problems = [];
  function key(cell) {
    var s = cell.getAttribute("data-sort") || cell.textContent;
    var m = /([+\-−]?)\$?(\d[\d,]*(?:\.\d+)?)\s?([kMG](?![a-z]))?/.exec(s);
    if (!m) { return null; }
    var v = parseFloat(m[2].replace(/,/g, "")) * ({ k: 1e3, M: 1e6, G: 1e9 }[m[3]] || 1);
    return m[1] ? -v : v;
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table, ti) {
    var original = Array.prototype.slice.call(table.tBodies[0].rows);
    var ths = table.tHead.rows[0].cells;
    var col = 0;
    for (var j = 0; j < ths.length; j++) { if (ths[j].classList.contains("num")) { col = j; break; } }
    var th = ths[col];
    ["ascending", "descending"].forEach(function (dir) {
      th.click();
      if (th.getAttribute("aria-sort") !== dir) { problems.push("table " + ti + ": aria-sort " + th.getAttribute("aria-sort") + ", want " + dir); return; }
      var rows = table.tBodies[0].rows;
      for (var i = 1; i < rows.length; i++) {
        var a = rows[i - 1].cells[col], b = rows[i].cells[col];
        if (!a || !b) { continue; }
        var ka = th.classList.contains("num") ? key(a) : null, kb = th.classList.contains("num") ? key(b) : null;
        var d = (ka !== null && kb !== null) ? ka - kb : a.textContent.trim().localeCompare(b.textContent.trim());
        if ((dir === "ascending" && d > 0) || (dir === "descending" && d < 0)) {
          problems.push("table " + ti + " column " + col + " " + dir + ": row " + i + " out of order");
          break;
        }
      }
    });
    // back as the report shows it, for the screenshot
    original.forEach(function (r) { table.tBodies[0].appendChild(r); });
    th.removeAttribute("aria-sort");
  });
  document.body.setAttribute("data-sort-check", problems.length ? problems.join("; ") : "ok " + tables.length);
});
</script>`

// focusStyle, added to a copy of a report, shows one section alone (for
// a screenshot of what is not at the top of the page).
const focusStyle = `<style>header, main > :not(section), main > section:not(#%s) { display: none !important; }</style>`

// checkInBrowser opens each report in headless Chromium, once: the
// report's script ran, nothing was logged on the console or written
// into its error box, every table sorts both ways, and the screenshot
// shows something. The pictures go to shots (dir when empty); with
// -screenshots, also one of a section alone where a report has one to
// show (r.focus).
func checkInBrowser(t *testing.T, bin, dir, shots string, reports []reportFixture) {
	if shots == "" {
		shots = dir
	}
	require.NoError(t, os.MkdirAll(shots, 0o755))
	for _, r := range reports {
		t.Run(r.name, func(t *testing.T) {
			doc, err := os.ReadFile(r.path)
			require.NoError(t, err)
			checked := filepath.Join(dir, r.name+"-checked.html")
			require.NoError(t, os.WriteFile(checked, bytes.Replace(doc, []byte("</body>"), []byte(browserCheck+"</body>"), 1), 0o644))
			shot := filepath.Join(shots, "report-"+r.name+".png")
			dom, console := openInBrowser(t, bin, checked, "--dump-dom", "--screenshot="+shot, "--window-size=1280,1400")
			assert.Contains(t, dom, `data-report-ready="yes"`, "the report's script ran without an error")
			assert.Contains(t, dom, `<div id="report-errors" hidden=""></div>`, "no error was written into the page")
			assert.Regexp(t, `data-sort-check="ok [1-9]`, dom, "every table sorts both ways")
			assert.Empty(t, console, "nothing on the console")
			checkPicture(t, shot)
			if *screenshots && r.focus != "" {
				id := regexp.MustCompile(`<section id="(s\d+)">\n<h2>` + regexp.QuoteMeta(r.focus) + `</h2>`).FindSubmatch(doc)
				require.NotNil(t, id, "a section %q", r.focus)
				focused := filepath.Join(dir, r.name+"-focus.html")
				style := fmt.Sprintf(focusStyle, id[1])
				require.NoError(t, os.WriteFile(focused, bytes.Replace(doc, []byte("</head>"), []byte(style+"</head>"), 1), 0o644))
				shot := filepath.Join(shots, "report-"+r.name+"-"+r.focusName+".png")
				openInBrowser(t, bin, focused, "--screenshot="+shot, "--window-size=1280,900")
				checkPicture(t, shot)
			}
		})
	}
}

// consoleLine is a message a page logged, as Chromium's
// --enable-logging=stderr writes it.
var consoleLine = regexp.MustCompile(`(?m)^.*:CONSOLE(?:\(\d+\))?[:\]].*$`)

// openInBrowser opens file in headless Chromium with args and returns
// its standard output and the console messages the page logged.
func openInBrowser(t *testing.T, bin, file string, args ...string) (string, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	profile := t.TempDir()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000"}, args...)
	cmd := exec.CommandContext(ctx, bin, append(all, "file://"+file)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, err, "chromium %v: %s", args, tail(stderr.String(), 2000))
	return stdout.String(), consoleLine.FindAllString(stderr.String(), -1)
}

// checkPicture checks a screenshot is a picture of something: a PNG
// with more than a few colours.
func checkPicture(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err, "the screenshot")
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	colours := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, bl, a}] = true
		}
	}
	assert.Greater(t, len(colours), 20, "%s shows something (%v)", path, b.Size())
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + strings.TrimSpace(s[len(s)-n:])
}
