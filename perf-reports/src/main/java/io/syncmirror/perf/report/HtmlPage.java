package io.syncmirror.perf.report;

import java.util.List;

import io.syncmirror.perf.svg.Html;

/**
 * One self-contained HTML report: headings, paragraphs, tables and inline SVG figures, with its style inline. No
 * script and no external resource, so it opens offline and reads the same in any browser. Not thread-safe.
 */
public final class HtmlPage
{
    private final String title;
    private final StringBuilder body = new StringBuilder(64 * 1024);
    private int figures;

    public HtmlPage(final String title)
    {
        this.title = title;
    }

    public HtmlPage heading(final String text)
    {
        body.append("<h2>").append(Html.escape(text)).append("</h2>\n");
        return this;
    }

    public HtmlPage subheading(final String text)
    {
        body.append("<h3>").append(Html.escape(text)).append("</h3>\n");
        return this;
    }

    /** A paragraph of plain text (escaped). */
    public HtmlPage paragraph(final String text)
    {
        body.append("<p>").append(Html.escape(text)).append("</p>\n");
        return this;
    }

    /** A figure: an SVG element from {@link io.syncmirror.perf.svg.Chart#render} and its caption. */
    public HtmlPage figure(final String svg, final String caption)
    {
        figures++;
        body.append("<figure>\n").append(svg).append("<figcaption>Figure ").append(figures).append(". ")
            .append(Html.escape(caption)).append("</figcaption>\n</figure>\n");
        return this;
    }

    /** A table whose first row is its header; cells are escaped. */
    public HtmlPage table(final List<List<String>> rows)
    {
        body.append("<table>\n");
        for (int r = 0; r < rows.size(); r++)
        {
            body.append("<tr>");
            for (final String cell : rows.get(r))
            {
                final String tag = r == 0 ? "th" : "td";
                body.append('<').append(tag).append('>').append(Html.escape(cell)).append("</").append(tag).append('>');
            }
            body.append("</tr>\n");
        }
        body.append("</table>\n");
        return this;
    }

    /** How many figures the page holds. */
    public int figures()
    {
        return figures;
    }

    /** The whole document. */
    public String render()
    {
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + Html.escape(title)
            + "</title>\n<style>\n"
            + "body{font-family:sans-serif;margin:16px 24px;color:#222;max-width:1100px}\n"
            + "h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}h3{font-size:15px}\n"
            + "table{border-collapse:collapse;font-size:12px;margin:8px 0;display:block;overflow-x:auto}\n"
            + "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}th{background:#eef}\n"
            + "figure{margin:12px 0}figcaption{font-size:13px;color:#444;margin-top:4px}\n"
            + ".pass{color:#185}.fail{color:#b00;font-weight:bold}.unsure{color:#a60;font-weight:bold}\n"
            + "</style>\n</head>\n<body>\n<h1>" + Html.escape(title) + "</h1>\n" + body + "</body>\n</html>\n";
    }
}
