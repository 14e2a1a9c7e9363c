package io.syncmirror.perf.svg;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How a chart axis maps data to position: linear, log10, or HdrHistogram's percentile axis (a quantile q drawn at
 * log10(1/(1-q)), so 90 %, 99 %, 99.9 % ... are evenly spaced). Immutable.
 */
public enum Scale
{
    LINEAR, LOG10, PERCENTILE;

    /** Highest quantile the percentile axis draws (99.9999 %): 1/(1-q) is infinite at q = 1. */
    public static final double MAX_QUANTILE = 0.999999;

    /** The axis coordinate of {@code value}; NaN when the scale cannot place it (log of 0 or less). */
    public double transform(final double value)
    {
        return switch (this)
        {
            case LINEAR -> value;
            case LOG10 -> value > 0 ? Math.log10(value) : Double.NaN;
            case PERCENTILE -> value >= 0 && value < 1 ? Math.log10(1.0 / (1.0 - Math.min(value, MAX_QUANTILE))) :
                Double.NaN;
        };
    }

    /** A tick: its data value and its label. */
    public record Tick(double value, String label)
    {
    }

    /** Ticks between {@code min} and {@code max} (data values), labelled. */
    public List<Tick> ticks(final double min, final double max)
    {
        final List<Tick> ticks = new ArrayList<>();
        switch (this)
        {
            case LINEAR ->
            {
                final double step = niceStep((max - min) / 5.0);
                for (double v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step)
                {
                    ticks.add(new Tick(v, number(Math.abs(v) < step * 1e-9 ? 0.0 : v)));
                }
            }
            case LOG10 ->
            {
                for (int e = (int)Math.floor(Math.log10(min)); e <= (int)Math.ceil(Math.log10(max)); e++)
                {
                    final double v = Math.pow(10, e);
                    if (v >= min * 0.999 && v <= max * 1.001)
                    {
                        ticks.add(new Tick(v, number(v)));
                    }
                }
            }
            case PERCENTILE ->
            {
                final String[] labels = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%"};
                for (int e = 0; e < labels.length; e++)
                {
                    final double q = 1.0 - Math.pow(10, -e);
                    if (q >= min - 1e-12 && q <= max + 1e-12)
                    {
                        ticks.add(new Tick(q, labels[e]));
                    }
                }
            }
            default -> throw new IllegalStateException(name());
        }
        return ticks;
    }

    /** 1, 2 or 5 times a power of ten, at least {@code rough}. */
    static double niceStep(final double rough)
    {
        if (!(rough > 0) || Double.isInfinite(rough))
        {
            return 1.0;
        }
        final double power = Math.pow(10, Math.floor(Math.log10(rough)));
        final double fraction = rough / power;
        return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power;
    }

    /** A short label: 1.5k, 20M, 0.25, 1200. */
    static String number(final double v)
    {
        final double abs = Math.abs(v);
        if (abs >= 1e6)
        {
            return trim(String.format(Locale.ROOT, "%.1f", v / 1e6)) + "M";
        }
        if (abs >= 1e4)
        {
            return trim(String.format(Locale.ROOT, "%.1f", v / 1e3)) + "k";
        }
        if (abs >= 1 || abs == 0)
        {
            return trim(String.format(Locale.ROOT, "%.1f", v));
        }
        return trim(String.format(Locale.ROOT, "%.3g", v));
    }

    private static String trim(final String number)
    {
        return number.contains(".") ? number.replaceAll("0+$", "").replaceAll("\\.$", "") : number;
    }
}
