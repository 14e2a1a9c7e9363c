package io.syncmirror.perf.svg;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChartTest
{
    @Test
    void shouldPlaceQuantilesAsHdrHistogramDoes()
    {
        assertEquals(0.0, Scale.PERCENTILE.transform(0.0), 1e-12);
        assertEquals(1.0, Scale.PERCENTILE.transform(0.9), 1e-9);
        assertEquals(3.0, Scale.PERCENTILE.transform(0.999), 1e-9);
        assertTrue(Double.isNaN(Scale.PERCENTILE.transform(1.0)), "q = 1 has no place on the axis");
        assertTrue(Double.isNaN(Scale.LOG10.transform(0.0)));
        assertEquals(List.of("0%", "90%", "99%", "99.9%"), Scale.PERCENTILE.ticks(0.0, 0.9995).stream()
            .map(Scale.Tick::label).toList());
    }

    @Test
    void shouldChooseRoundTicksAndShortLabels()
    {
        assertEquals(List.of("0", "50", "100", "150", "200"), Scale.LINEAR.ticks(0, 210).stream()
            .map(Scale.Tick::label).toList());
        assertEquals(List.of("0.1", "1", "10", "100"), Scale.LOG10.ticks(0.1, 100).stream().map(Scale.Tick::label)
            .toList());
        assertEquals("15k", Scale.number(15_000));
        assertEquals("2.5M", Scale.number(2_500_000));
        assertEquals("0.25", Scale.number(0.25));
    }

    @Test
    void shouldLeaveOutPointsItCannotPlaceAndNeverWriteNaN()
    {
        final String svg = new Chart("t", 600, 300, "x", "y", Scale.PERCENTILE, Scale.LOG10)
            .line("a", Chart.PALETTE.get(0), new double[] {0.0, 0.5, 0.99, 1.0, Double.NaN},
                new double[] {1.0, 0.0, 5.0, 9.0, 3.0}).render();
        assertFalse(svg.contains("NaN") || svg.contains("Infinity"), svg);
        final String points = svg.substring(svg.indexOf("points=\"") + 8);
        assertEquals(2, points.substring(0, points.indexOf('"')).trim().split(" ").length, "only (0,1) and (0.99,5)");
    }

    @Test
    void shouldSayNoDataInsteadOfDrawingAnEmptyChart()
    {
        final String svg = new Chart("t", 600, 300, "x", "y", Scale.LINEAR, Scale.LINEAR)
            .line("a", "#000", new double[] {Double.NaN}, new double[] {1}).render();
        assertTrue(svg.contains(">no data<"), svg);
    }

    @Test
    void shouldDrawBarsWithErrorBarsAndEscapeNames()
    {
        final String svg = new Chart("<bars>", 600, 300, "x", "ns/op", Scale.LINEAR, Scale.LINEAR)
            .categories(List.of("p=1", "p=3")).bars("ours & co", "#1f77b4", new double[] {10, Double.NaN},
                new double[] {1, Double.NaN}).render();
        assertTrue(svg.contains("&lt;bars&gt;") && svg.contains("ours &amp; co"), svg);
        assertEquals(1, svg.split("stroke=\"#222\"", -1).length - 1, "one error bar");
        assertThrows(IllegalArgumentException.class, () -> new Chart("t", 600, 300, "x", "y", Scale.LINEAR,
            Scale.LINEAR).categories(List.of("a")).bars("b", "#000", new double[] {1, 2}, new double[] {0, 0}));
    }
}
