"""report.html: the Markdown report as one self-contained page, its headings anchored as on
GitHub so that report.md's links work in both."""

from __future__ import annotations

import html
import itertools


def anchor(title: str) -> str:
    """The fragment a heading gets, as GitHub makes it: lower case, punctuation other than
    `-` and `_` dropped, spaces as hyphens; so report.md's links work there and in report.html."""
    kept = "".join(c for c in title.lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;"
    "line-height:1.4}p,li{overflow-wrap:anywhere}.wide{overflow-x:auto;margin:.5rem 0}"
    "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:.2rem .5rem;"
    "text-align:left;vertical-align:top}th{background:#eee}h3{overflow-wrap:anywhere}"
    "nav ol{columns:16rem}summary{cursor:pointer;font-weight:bold}pre{overflow-x:auto}"
)


def html_page(markdown_text: str) -> str:
    """A self-contained HTML page for the Markdown report: headings with the same anchors as
    on GitHub, a folded contents list of the sections, tables that scroll inside the page."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(markdown_text)
    seen: dict[str, int] = {}
    sections = []
    for heading, inline in itertools.pairwise(tokens):
        if heading.type == "heading_open":
            slug = anchor(inline.content)
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            heading.attrSet("id", f"{slug}-{n}" if n else slug)
            if heading.tag == "h2":
                sections.append((heading.attrGet("id"), inline.content))
    body = md.renderer.render(tokens, md.options, {})
    body = body.replace("<table>", '<div class="wide"><table>').replace(
        "</table>", "</table></div>"
    )
    contents = "".join(f'<li><a href="#{i}">{html.escape(t)}</a></li>' for i, t in sections)
    # Folded, so that the page opens on the letter on a phone as on a desktop.
    nav = f"<nav><details><summary>Contents</summary><ol>{contents}</ol></details></nav>"
    body = body.replace("</h1>\n", f"</h1>\n{nav}\n", 1)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Spec review: prompt suggestions</title><style>{_STYLE}</style></head>\n"
        f"<body>\n{body}</body></html>\n"
    )
