package io.syncmirror.perf.svg;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A chart drawn as one self-contained SVG element: lines over x and y scales, or groups of bars with error bars.
 * Hand-written because a chart here is a few dozen elements: axes, ticks, polylines, rectangles and a legend; a
 * plotting library (JFreeChart's SVG export, or a JavaScript one) would bring a dependency or script for that.
 * Every coordinate written is finite: points a scale cannot place (NaN, a log of 0) are left out, and a chart with
 * no data says so in its plot area instead of drawing an empty one. Not thread-safe; build, then {@link #render}.
 */
public final class Chart
{
    /** The plot area's fill; the screenshot test finds plot areas by it. */
    public static final String PLOT_FILL = "#f7f9fc";
    /** Series colours, all saturated so that drawn data stands out from the greys of axes and grid. */
    public static final List<String> PALETTE = List.of("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
        "#17becf");

    private static final int LEFT = 72;
    /** Room right of the plot area for the legend, which stays out of the plot area: that holds data only. */
    private static final int RIGHT = 230;
    private static final int TOP = 34;
    private static final int BOTTOM = 48;

    /** A line: its name in the legend, colour, and points. */
    public record Line(String name, String color, double[] xs, double[] ys, boolean dashed)
    {
    }

    /** One bar series over the categories: values and error half-widths (NaN for none). */
    public record Bars(String name, String color, double[] values, double[] errors)
    {
    }

    private final String title;
    private final int width;
    private final int height;
    private final String xLabel;
    private final String yLabel;
    private final Scale xScale;
    private final Scale yScale;
    private final List<Line> lines = new ArrayList<>();
    private final List<Bars> bars = new ArrayList<>();
    private List<String> categories = List.of();
    private double yMinFloor = Double.NaN;

    public Chart(final String title, final int width, final int height, final String xLabel, final String yLabel,
        final Scale xScale, final Scale yScale)
    {
        this.title = title;
        this.width = width;
        this.height = height;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
        this.xScale = xScale;
        this.yScale = yScale;
    }

    /** Adds a line; points with a non-finite coordinate on their scale are skipped. */
    public Chart line(final String name, final String color, final double[] xs, final double[] ys)
    {
        return line(name, color, xs, ys, false);
    }

    /** Adds a line, dashed if asked. */
    public Chart line(final String name, final String color, final double[] xs, final double[] ys,
        final boolean dashed)
    {
        if (xs.length != ys.length)
        {
            throw new IllegalArgumentException("line " + name + ": " + xs.length + " x values, " + ys.length + " y");
        }
        lines.add(new Line(name, color, xs.clone(), ys.clone(), dashed));
        return this;
    }

    /** Sets the bar chart's categories (x axis labels). */
    public Chart categories(final List<String> names)
    {
        this.categories = List.copyOf(names);
        return this;
    }

    /** Adds a bar series over the categories. */
    public Chart bars(final String name, final String color, final double[] values, final double[] errors)
    {
        if (values.length != categories.size() || errors.length != categories.size())
        {
            throw new IllegalArgumentException("bars " + name + ": " + values.length + " values for "
                + categories.size() + " categories");
        }
        bars.add(new Bars(name, color, values.clone(), errors.clone()));
        return this;
    }

    /** Starts the y axis at {@code floor} at most (a linear axis of throughput starts at 0). */
    public Chart yFrom(final double floor)
    {
        this.yMinFloor = floor;
        return this;
    }

    /** The SVG element. */
    public String render()
    {
        final StringBuilder svg = new StringBuilder(4096);
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%d\" "
            + "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", width, height,
            width, height));
        svg.append(String.format(Locale.ROOT, "<title>%s</title>%n", Html.escape(title)));
        svg.append(String.format(Locale.ROOT, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>%n",
            width, height));
        svg.append(text(LEFT, 20, "start", "bold", title));
        final int plotW = width - LEFT - RIGHT;
        final int plotH = height - TOP - BOTTOM;
        svg.append(String.format(Locale.ROOT, "<rect class=\"plot-area\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
            + "fill=\"%s\" stroke=\"#888\"/>%n", LEFT, TOP, plotW, plotH, PLOT_FILL));
        if (bars.isEmpty())
        {
            renderLines(svg, plotW, plotH);
        }
        else
        {
            renderBars(svg, plotW, plotH);
        }
        svg.append(text(LEFT + plotW / 2.0, height - 8, "middle", "normal", xLabel));
        svg.append(String.format(Locale.ROOT, "<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\" "
            + "transform=\"rotate(-90 14 %.1f)\">%s</text>%n", TOP + plotH / 2.0, TOP + plotH / 2.0,
            Html.escape(yLabel)));
        svg.append("</svg>\n");
        return svg.toString();
    }

    private void renderLines(final StringBuilder svg, final int plotW, final int plotH)
    {
        final double[] xr = range(true);
        final double[] yr = range(false);
        if (xr == null || yr == null)
        {
            svg.append(text(LEFT + plotW / 2.0, TOP + plotH / 2.0, "middle", "normal", "no data"));
            return;
        }
        final Axis x = new Axis(xScale, xr[0], xr[1], LEFT, LEFT + plotW);
        final Axis y = new Axis(yScale, yr[0], yr[1], TOP + plotH, TOP);
        grid(svg, x, y, plotW, plotH);
        for (final Line line : lines)
        {
            final StringBuilder points = new StringBuilder();
            for (int i = 0; i < line.xs().length; i++)
            {
                final double px = x.position(line.xs()[i]);
                final double py = y.position(line.ys()[i]);
                if (Double.isFinite(px) && Double.isFinite(py))
                {
                    points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
                }
            }
            if (points.length() > 0)
            {
                svg.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s "
                    + "points=\"%s\"/>%n", line.color(), line.dashed() ? " stroke-dasharray=\"6 4\"" : "",
                    points.toString().trim()));
            }
        }
        legend(svg, plotW, lines.stream().map(l -> new String[] {l.name(), l.color(), l.dashed() ? "dashed" : ""})
            .toList());
    }

    private void renderBars(final StringBuilder svg, final int plotW, final int plotH)
    {
        double max = 0;
        for (final Bars series : bars)
        {
            for (int i = 0; i < series.values().length; i++)
            {
                final double top = series.values()[i] + (Double.isFinite(series.errors()[i]) ? series.errors()[i] : 0);
                if (Double.isFinite(top))
                {
                    max = Math.max(max, top);
                }
            }
        }
        if (!(max > 0))
        {
            svg.append(text(LEFT + plotW / 2.0, TOP + plotH / 2.0, "middle", "normal", "no data"));
            return;
        }
        final Axis y = new Axis(Scale.LINEAR, 0, max * 1.1, TOP + plotH, TOP);
        grid(svg, null, y, plotW, plotH);
        final double groupW = (double)plotW / categories.size();
        final double barW = groupW * 0.8 / bars.size();
        for (int c = 0; c < categories.size(); c++)
        {
            final double groupX = LEFT + c * groupW + groupW * 0.1;
            for (int s = 0; s < bars.size(); s++)
            {
                final Bars series = bars.get(s);
                final double value = series.values()[c];
                if (!Double.isFinite(value))
                {
                    continue;
                }
                final double bx = groupX + s * barW;
                final double by = y.position(value);
                svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                    + "fill=\"%s\"><title>%s %s: %s</title></rect>%n", bx, by, Math.max(1.0, barW - 2),
                    Math.max(0.0, TOP + plotH - by), series.color(), Html.escape(series.name()),
                    Html.escape(categories.get(c)), Scale.number(value)));
                final double error = series.errors()[c];
                if (Double.isFinite(error) && error > 0)
                {
                    final double cx = bx + (barW - 2) / 2.0;
                    final double low = y.position(Math.max(0.0, value - error));
                    final double high = y.position(value + error);
                    svg.append(String.format(Locale.ROOT, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" "
                        + "stroke=\"#222\" stroke-width=\"1.5\"/>%n", cx, low, high, cx - 4, low, cx + 4, cx - 4, high,
                        cx + 4));
                }
            }
            svg.append(text(LEFT + c * groupW + groupW / 2.0, TOP + plotH + 16, "middle", "normal",
                categories.get(c)));
        }
        legend(svg, plotW, bars.stream().map(b -> new String[] {b.name(), b.color(), ""}).toList());
    }

    private void grid(final StringBuilder svg, final Axis x, final Axis y, final int plotW, final int plotH)
    {
        if (x != null)
        {
            for (final Scale.Tick tick : x.ticks())
            {
                final double px = x.position(tick.value());
                if (Double.isFinite(px))
                {
                    svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                        + "stroke=\"#dde\"/>%n", px, TOP, px, TOP + plotH));
                    svg.append(text(px, TOP + plotH + 16, "middle", "normal", tick.label()));
                }
            }
        }
        for (final Scale.Tick tick : y.ticks())
        {
            final double py = y.position(tick.value());
            if (Double.isFinite(py))
            {
                svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                    + "stroke=\"#dde\"/>%n", LEFT, py, LEFT + plotW, py));
                svg.append(text(LEFT - 6, py + 4, "end", "normal", tick.label()));
            }
        }
    }

    private void legend(final StringBuilder svg, final int plotW, final List<String[]> entries)
    {
        final int rowH = 16;
        final int x0 = LEFT + plotW + 4;
        for (int i = 0; i < entries.size(); i++)
        {
            final int y = TOP + i * rowH;
            if (entries.get(i)[2].isEmpty())
            {
                svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"10\" "
                    + "fill=\"%s\"/>%n", x0 + 4, y + 1, entries.get(i)[1]));
            }
            else
            {
                svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                    + "stroke-width=\"2\" stroke-dasharray=\"4 3\"/>%n", x0 + 2, y + 6, x0 + 18, y + 6,
                    entries.get(i)[1]));
            }
            final String name = entries.get(i)[0];
            svg.append(text(x0 + 22, y + 10, "start", "normal", name.length() > 29 ? name.substring(0, 28) + "…" :
                name));
        }
    }

    /** The data range on an axis after the scale (null when no point can be placed), padded for lines. */
    private double[] range(final boolean xAxis)
    {
        final Scale scale = xAxis ? xScale : yScale;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (final Line line : lines)
        {
            for (int i = 0; i < line.xs().length; i++)
            {
                final double x = line.xs()[i];
                final double y = line.ys()[i];
                if (Double.isFinite(xScale.transform(x)) && Double.isFinite(yScale.transform(y)))
                {
                    final double v = xAxis ? x : y;
                    min = Math.min(min, v);
                    max = Math.max(max, v);
                }
            }
        }
        if (min > max)
        {
            return null;
        }
        if (!xAxis && Double.isFinite(yMinFloor))
        {
            min = Math.min(min, yMinFloor);
        }
        if (scale == Scale.PERCENTILE)
        {
            return new double[] {0.0, Math.max(max, 0.99)};
        }
        if (scale == Scale.LOG10)
        {
            return new double[] {Math.pow(10, Math.floor(Math.log10(min))), Math.pow(10, Math.ceil(Math.log10(max *
                1.0001)))};
        }
        if (min == max)
        {
            return new double[] {min - 1, max + 1};
        }
        final double pad = xAxis ? 0 : (max - min) * 0.05;
        return new double[] {min - (min == yMinFloor ? 0 : pad), max + pad};
    }

    private static String text(final double x, final double y, final String anchor, final String weight,
        final String content)
    {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-weight=\"%s\">%s"
            + "</text>%n", x, y, anchor, weight, Html.escape(content));
    }

    /** An axis: a scale, its data range and the pixels it spans. */
    private record Axis(Scale scale, double min, double max, double from, double to)
    {
        double position(final double value)
        {
            final double t = scale.transform(value);
            final double lo = scale.transform(min);
            final double hi = scale.transform(max);
            if (!Double.isFinite(t) || !(hi > lo))
            {
                return Double.NaN;
            }
            return from + (to - from) * (Math.max(lo, Math.min(hi, t)) - lo) / (hi - lo);
        }

        List<Scale.Tick> ticks()
        {
            return scale.ticks(min, max);
        }
    }
}
