package io.syncmirror.perf.report;

import java.util.ArrayList;
import java.util.List;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

import io.syncmirror.perf.data.LatencyLog;
import io.syncmirror.perf.data.PercentileFile;
import io.syncmirror.perf.data.Timeline;
import io.syncmirror.perf.svg.Chart;
import io.syncmirror.perf.svg.Scale;

/** The report's figure kinds, built from the data readers' types. Stateless. */
public final class Figures
{
    /** Width and height of every figure, in CSS pixels. */
    public static final int WIDTH = 1000;
    public static final int HEIGHT = 360;

    private Figures()
    {
    }

    /** A named latency distribution to draw. */
    public record Spectrum(String name, Histogram histogram)
    {
    }

    /** A named series over time: x in seconds. */
    public record Series(String name, double[] seconds, double[] values, boolean dashed)
    {
    }

    /** Percentile spectra (HdrHistogram's plot: latency against 1/(1-q) on a log axis), values µs drawn in ms. */
    public static Chart spectrum(final String title, final List<Spectrum> spectra)
    {
        final Chart chart = new Chart(title, WIDTH, HEIGHT, "percentile", "latency (ms, log scale)", Scale.PERCENTILE,
            Scale.LOG10);
        for (int i = 0; i < spectra.size(); i++)
        {
            final double[][] points = points(spectra.get(i).histogram());
            chart.line(spectra.get(i).name() + " (n=" + spectra.get(i).histogram().getTotalCount() + ")", color(i),
                points[0], points[1]);
        }
        return chart;
    }

    /** Spectra from percentile text files (the produce-latency harness's {@code .hgrm}). */
    public static Chart spectrumOfFiles(final String title, final List<String> names, final List<PercentileFile> files)
    {
        final Chart chart = new Chart(title, WIDTH, HEIGHT, "percentile", "latency (ms, log scale)", Scale.PERCENTILE,
            Scale.LOG10);
        for (int i = 0; i < files.size(); i++)
        {
            final List<PercentileFile.Point> points = files.get(i).points();
            final double[] qs = new double[points.size()];
            final double[] ms = new double[points.size()];
            for (int p = 0; p < points.size(); p++)
            {
                qs[p] = points.get(p).quantile();
                ms[p] = points.get(p).value() / 1000.0;
            }
            chart.line(names.get(i), color(i), qs, ms);
        }
        return chart;
    }

    /** Lines over time in seconds into a window. */
    public static Chart overTime(final String title, final String yLabel, final List<Series> series,
        final boolean fromZero)
    {
        return lines(title, "seconds into the window", yLabel, series, fromZero);
    }

    /** Lines over a linear x axis; a dashed series takes the colour of the solid one before it. */
    public static Chart lines(final String title, final String xLabel, final String yLabel,
        final List<Series> series, final boolean fromZero)
    {
        final Chart chart = new Chart(title, WIDTH, HEIGHT, xLabel, yLabel, Scale.LINEAR, Scale.LINEAR);
        if (fromZero)
        {
            chart.yFrom(0.0);
        }
        int solid = 0;
        String lastColor = color(0);
        for (final Series s : series)
        {
            final String c = s.dashed() ? lastColor : color(solid++);
            lastColor = c;
            chart.line(s.name(), c, s.seconds(), s.values(), s.dashed());
        }
        return chart;
    }

    /** The p99 (solid) and p50 (dashed) of each interval of {@code log}, in ms, named {@code name}. */
    public static List<Series> intervalPercentiles(final String name, final LatencyLog log)
    {
        final int n = log.intervals().size();
        final double[] t = new double[n];
        final double[] p99 = new double[n];
        final double[] p50 = new double[n];
        for (int i = 0; i < n; i++)
        {
            final LatencyLog.Interval interval = log.intervals().get(i);
            t[i] = interval.endSeconds();
            final boolean empty = interval.histogram().getTotalCount() == 0;
            p99[i] = empty ? Double.NaN : interval.histogram().getValueAtPercentile(99.0) / 1000.0;
            p50[i] = empty ? Double.NaN : interval.histogram().getValueAtPercentile(50.0) / 1000.0;
        }
        return List.of(new Series(name + " p99", t, p99, false), new Series(name + " p50", t, p50, true));
    }

    /** Acknowledged records per second of each interval of {@code log}. */
    public static Series throughput(final String name, final LatencyLog log)
    {
        final int n = log.intervals().size();
        final double[] t = new double[n];
        final double[] rate = new double[n];
        for (int i = 0; i < n; i++)
        {
            final LatencyLog.Interval interval = log.intervals().get(i);
            t[i] = interval.endSeconds();
            final double seconds = interval.endSeconds() - interval.startSeconds();
            rate[i] = seconds > 0 ? interval.histogram().getTotalCount() / seconds : Double.NaN;
        }
        return new Series(name, t, rate, false);
    }

    /** This process's CPU (solid, % of one core) and the machine's (dashed, % of all cores) over a timeline. */
    public static List<Series> cpu(final String name, final Timeline timeline)
    {
        final int n = timeline.rows().size();
        final double[] t = new double[n];
        final double[] process = new double[n];
        final double[] machine = new double[n];
        for (int i = 0; i < n; i++)
        {
            final Timeline.Row row = timeline.rows().get(i);
            t[i] = row.second();
            process[i] = row.processCpuPct();
            machine[i] = row.machineCpuPct();
        }
        final List<Series> series = new ArrayList<>();
        series.add(new Series(name + " process % of 1 core", t, process, false));
        series.add(new Series(name + " machine % of all", t, machine, true));
        return series;
    }

    /** The n-th palette colour, cycling. */
    public static String color(final int index)
    {
        return Chart.PALETTE.get(index % Chart.PALETTE.size());
    }

    /** HdrHistogram's percentile iteration (5 ticks per half distance), µs values as ms. */
    static double[][] points(final Histogram histogram)
    {
        final List<double[]> points = new ArrayList<>();
        if (histogram.getTotalCount() > 0)
        {
            for (final HistogramIterationValue value : histogram.percentiles(5))
            {
                final double q = value.getPercentileLevelIteratedTo() / 100.0;
                if (q < 1.0)
                {
                    points.add(new double[] {q, histogram.highestEquivalentValue(value.getValueIteratedTo()) / 1000.0});
                }
            }
            // The iteration's last step is q = 1 (the max), which the axis cannot place; draw the max at the
            // highest quantile the sample count resolves instead.
            final double top = Math.min(Scale.MAX_QUANTILE, 1.0 - 1.0 / histogram.getTotalCount());
            points.add(new double[] {top, histogram.getMaxValue() / 1000.0});
        }
        final double[] xs = new double[points.size()];
        final double[] ys = new double[points.size()];
        for (int i = 0; i < points.size(); i++)
        {
            xs[i] = points.get(i)[0];
            ys[i] = points.get(i)[1];
        }
        return new double[][] {xs, ys};
    }
}
