package io.syncmirror.perf.report;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

import io.syncmirror.perf.ReportMain;
import io.syncmirror.perf.data.BenchRun;
import io.syncmirror.perf.data.JmhResults;
import io.syncmirror.perf.data.LatencyLog;
import io.syncmirror.perf.data.ResultLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReportTest
{
    private static final Pattern SVG = Pattern.compile("<svg .*?</svg>", Pattern.DOTALL);

    @Test
    void shouldReadARecordedBenchRunWithHdrHistogramsOwnReader() throws IOException
    {
        final BenchRun run = BenchRun.read(Recorded.syncBenchRun());
        assertEquals("100", run.property("option.partitions", ""));
        assertEquals(2, run.results().size());
        final ResultLine sync = run.results().get(1);
        assertEquals("SYNC", sync.label());
        final BenchRun.Window window = run.window(sync);
        // The log's intervals add up to the window's RESULT: same count, same p99.
        assertEquals((long)sync.number("acked"), window.ack().total().getTotalCount());
        assertEquals((long)sync.number("p99_us"), window.ack().total().getValueAtPercentile(99.0));
        assertTrue(window.ack().intervals().size() >= 14, "intervals " + window.ack().intervals().size());
        assertTrue(window.timeline().rows().size() >= 14, "timeline rows " + window.timeline().rows().size());
    }

    @Test
    void shouldWriteAReportWhoseChartsAreWellFormedLabelledAndFinite(@TempDir final Path dir) throws Exception
    {
        final Path html = ReportMain.run(new String[] {Recorded.syncBenchRun().toString(),
            Recorded.gateRun().toString(), Recorded.produceLatencyRun().toString(), "--out",
            dir.resolve("r.html").toString()});
        final String page = Files.readString(html, StandardCharsets.UTF_8);
        assertFalse(page.contains("NaN"), "NaN in the report");
        assertFalse(page.contains("Infinity"), "Infinity in the report");
        assertFalse(page.contains("<script"), "the report needs no script");
        final Matcher svgs = SVG.matcher(page);
        int charts = 0;
        while (svgs.find())
        {
            charts++;
            final Document svg = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svgs.group().getBytes(StandardCharsets.UTF_8)));
            final NodeList texts = svg.getElementsByTagName("text");
            assertTrue(texts.getLength() >= 4, "a chart with " + texts.getLength() + " texts");
            final int drawn = svg.getElementsByTagName("polyline").getLength() + svg.getElementsByTagName("rect")
                .getLength() - 2 - 1;
            assertTrue(drawn > 0, "a chart with nothing drawn: " + svgs.group().substring(0, 300));
            assertFalse(svgs.group().contains(">no data<"), "a chart without data");
        }
        // Sync bench: 4 figures; gate: 2 spectra and 6 metrics by round; produce latency: 1 topology.
        assertEquals(4 + 2 + 6 + 1, charts);
        assertTrue(page.contains("percentile"), "the spectrum's x axis is labelled");
        assertTrue(page.contains("99.9%"), "the spectrum has HdrHistogram's percentile ticks");
    }

    @Test
    void shouldReadJmhsJsonOfARecordedRun() throws IOException
    {
        final JmhResults results = JmhResults.read(Recorded.jmhRun().resolve("jmh-r1.json"));
        assertEquals(2, results.benchmarks().size());
        final JmhResults.Benchmark hw = results.benchmarks().get(0);
        assertEquals("HwRecomputeBenchmark.hwRecompute[mirrors=1,partitions=100000]", hw.key());
        assertEquals("ns/op", hw.unit());
        assertEquals(1, hw.forkScores().size());
        assertTrue(hw.score() > 0);
    }

    @Test
    void shouldRefuseWhatItCannotRead(@TempDir final Path dir) throws IOException
    {
        assertTrue(assertThrows(IOException.class, () -> ReportMain.run(new String[] {dir.toString()}))
            .getMessage().contains("holds no results this report knows"));
        assertTrue(assertThrows(IOException.class, () -> ReportMain.run(new String[] {dir.resolve("nope")
            .toString()})).getMessage().startsWith("no such directory"));
        assertThrows(IllegalArgumentException.class, () -> ReportMain.run(new String[] {"--out"}));
        Files.writeString(dir.resolve("jmh-result.json"), "{\"not\": \"a list\"}");
        assertTrue(assertThrows(IOException.class, () -> JmhResults.read(dir.resolve("jmh-result.json")))
            .getMessage().contains("not a JMH result list"));
        Files.writeString(dir.resolve("bad.hlog"), "#[StartTime: 1.0]\nnot,a,histogram\n");
        assertThrows(IOException.class, () -> LatencyLog.read(dir.resolve("bad.hlog")));
        Files.writeString(dir.resolve("run.properties"), "bench.format=1\n");
        Files.writeString(dir.resolve("summary.txt"), "");
        assertTrue(assertThrows(IOException.class, () -> BenchRun.read(dir)).getMessage()
            .contains("results format 1; this reader knows format 2"));
    }
}
