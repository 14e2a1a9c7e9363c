package io.syncmirror.perf.report;

import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.syncmirror.perf.ReportMain;
import io.syncmirror.perf.svg.Chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The report as a browser draws it: headless Chromium renders a report of recorded runs to a screenshot, and every
 * plot area in it (found by its fill colour) must hold drawn data (saturated series colours), not stay blank.
 * Without Chromium the test is skipped, except under CI ({@code CI} set), where {@code .ci/run} installs it.
 */
@Timeout(180)
class BrowserRenderTest
{
    private static final int WIDTH = 1100;

    @Test
    void shouldDrawEveryPlotAreaOfAReportInHeadlessChromium(@TempDir final Path dir) throws Exception
    {
        final Path chromium = chromium();
        final Path html = ReportMain.run(new String[] {Recorded.syncBenchRun().toString(),
            Recorded.gateRun().toString(), Recorded.produceLatencyRun().toString(), "--out",
            dir.resolve("report.html").toString()});
        final String page = Files.readString(html);
        final int charts = count(page, "class=\"plot-area\"");
        assertTrue(charts >= 10, "charts in the report: " + charts);
        final Path png = dir.resolve("report.png");
        final int height = 900 + charts * 430 + 2400;
        final Process process = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
            "--hide-scrollbars", "--user-data-dir=" + dir.resolve("profile"), "--window-size=" + WIDTH + "," + height,
            "--screenshot=" + png, html.toUri().toString()).redirectErrorStream(true)
            .redirectOutput(dir.resolve("chromium.log").toFile()).start();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "chromium did not finish");
        assertEquals(0, process.exitValue(), Files.readString(dir.resolve("chromium.log")));
        final BufferedImage image = ImageIO.read(png.toFile());
        final List<int[]> areas = plotAreas(image);
        assertEquals(charts, areas.size(), "plot areas found in the screenshot " + areas.size() + " of " + charts
            + " charts (raise the window height if the page got longer)");
        for (final int[] area : areas)
        {
            final int ink = ink(image, area);
            assertTrue(ink >= 40, "a plot area at y=" + area[1] + " is blank: " + ink + " drawn pixels");
        }
    }

    /** Chromium from the PATH, or a skip (a failure under CI). */
    static Path chromium()
    {
        for (final String name : List.of("chromium", "chromium-browser", "google-chrome"))
        {
            for (final String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
            {
                final Path candidate = Paths.get(dir, name);
                if (Files.isExecutable(candidate))
                {
                    return candidate;
                }
            }
        }
        if (System.getenv("CI") != null)
        {
            throw new AssertionError("no chromium on the PATH under CI: .ci/run installs Debian's chromium package");
        }
        Assumptions.assumeTrue(false, "no chromium on the PATH");
        return null;
    }

    private static int count(final String text, final String needle)
    {
        int count = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1))
        {
            count++;
        }
        return count;
    }

    /**
     * Bounding boxes {x0, y0, x1, y1} of the regions of plot-area fill, merging boxes that touch: grid lines and
     * drawn data cut one plot area into many pieces of fill.
     */
    static List<int[]> plotAreas(final BufferedImage image)
    {
        final int fill = Integer.parseInt(Chart.PLOT_FILL.substring(1), 16);
        final List<int[]> boxes = new ArrayList<>();
        for (int y = 0; y < image.getHeight(); y++)
        {
            int runStart = -1;
            for (int x = 0; x <= image.getWidth(); x++)
            {
                final boolean isFill = x < image.getWidth() && (image.getRGB(x, y) & 0xFFFFFF) == fill;
                if (isFill && runStart < 0)
                {
                    runStart = x;
                }
                else if (!isFill && runStart >= 0)
                {
                    if (x - runStart >= 3)
                    {
                        merge(boxes, new int[] {runStart, y, x - 1, y});
                    }
                    runStart = -1;
                }
            }
        }
        boxes.removeIf(b -> b[2] - b[0] < 100 || b[3] - b[1] < 60);
        return boxes;
    }

    private static void merge(final List<int[]> boxes, final int[] run)
    {
        final int gap = 6;
        int[] into = null;
        for (int i = 0; i < boxes.size(); i++)
        {
            final int[] b = boxes.get(i);
            final boolean touches = run[0] <= b[2] + gap && run[2] >= b[0] - gap && run[1] <= b[3] + gap &&
                run[3] >= b[1] - gap;
            if (!touches)
            {
                continue;
            }
            if (into == null)
            {
                into = b;
                b[0] = Math.min(b[0], run[0]);
                b[1] = Math.min(b[1], run[1]);
                b[2] = Math.max(b[2], run[2]);
                b[3] = Math.max(b[3], run[3]);
            }
            else
            {
                into[0] = Math.min(into[0], b[0]);
                into[1] = Math.min(into[1], b[1]);
                into[2] = Math.max(into[2], b[2]);
                into[3] = Math.max(into[3], b[3]);
                boxes.remove(i--);
            }
        }
        if (into == null)
        {
            boxes.add(run);
        }
    }

    /** Pixels in {@code area} in a saturated colour: drawn series (axes, grid, text and fill are greys). */
    static int ink(final BufferedImage image, final int[] area)
    {
        int ink = 0;
        for (int y = area[1]; y <= area[3]; y++)
        {
            for (int x = area[0]; x <= area[2]; x++)
            {
                final int rgb = image.getRGB(x, y);
                final int r = (rgb >> 16) & 0xFF;
                final int g = (rgb >> 8) & 0xFF;
                final int b = rgb & 0xFF;
                if (Math.max(r, Math.max(g, b)) - Math.min(r, Math.min(g, b)) > 60)
                {
                    ink++;
                }
            }
        }
        return ink;
    }
}
