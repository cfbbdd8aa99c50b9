// Package htmlreport writes loopsim's reports as one self-contained HTML
// file each: the styles and a small script inline, the plots as inline
// SVG, nothing fetched from the network, so the file can be opened from
// a CI artifact or an e-mail as it is.
//
// A report is a [Page]: a title, blocks before the first section, and
// sections of blocks (paragraphs, lists, code, tables, figures,
// timelines). [FromMarkdown] reads the Markdown loopsim's commands write
// (summary.md, compare.md, matrix.md) into a page, so the HTML says
// exactly what the Markdown says; a command then adds what Markdown
// cannot hold: each plot's SVG in place of its PNG, and an episode's
// [Timeline] (iterations, requests, tool calls, faults, compactions and
// the context size over simulated time, from internal/simclock through
// timeline/) drawn as SVG a reader scrolls horizontally.
//
// Every table sorts by a column when its header is clicked (numbers by
// value: "1.2k", "$0.66 ± $0.23", "3.0% [1.0, 8.5]" sort by their first
// number). The output is deterministic: the same page gives the same
// bytes.
package htmlreport
