package io.syncmirror.perf.svg;

/** Escaping for text placed in HTML and SVG. Stateless. */
public final class Html
{
    private Html()
    {
    }

    /** {@code text} with {@code & < > "} escaped. */
    public static String escape(final String text)
    {
        if (text == null)
        {
            return "";
        }
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
