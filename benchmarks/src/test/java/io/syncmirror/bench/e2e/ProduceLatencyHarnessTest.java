package io.syncmirror.bench.e2e;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProduceLatencyHarnessTest
{
    private static final Topology THREE_BY_THREE = Topology.parse("3x3");

    @Test
    void shouldTakeTheMiddleValueOrTheMeanOfTheTwoMiddleValues()
    {
        assertEquals(5.0, ProduceLatencyHarness.median(new double[]{ 9.0, 1.0, 5.0 }));
        assertEquals(4.0, ProduceLatencyHarness.median(new double[]{ 10.0, 3.0, 5.0, 1.0 }));
        assertTrue(Double.isNaN(ProduceLatencyHarness.median(new double[0])));
    }

    @Test
    void shouldSummariseEachSystemByItsMedianRoundAndCompareOursWithKafka()
    {
        final List<RoundFiguresBuilder> input = List.of(
            new RoundFiguresBuilder("ours", 1, 100, 1000, 3000),
            new RoundFiguresBuilder("kafka", 1, 400, 2000, 9000),
            new RoundFiguresBuilder("ours", 2, 300, 900, 1000),
            new RoundFiguresBuilder("kafka", 2, 200, 4000, 5000),
            new RoundFiguresBuilder("ours", 3, 200, 5000, 2000),
            new RoundFiguresBuilder("kafka", 3, 600, 3000, 4000));
        final List<String> lines = ProduceLatencyHarness.summary(THREE_BY_THREE, List.of("ours", "kafka"),
            input.stream().map(RoundFiguresBuilder::build).toList());

        assertTrue(lines.contains("E2E system=ours topo=3x3 rounds=3 p50_us=200.0 p99_us=1000.0 p999_us=2000.0"),
            String.join("\n", lines));
        assertTrue(lines.contains("E2E system=kafka topo=3x3 rounds=3 p50_us=400.0 p99_us=3000.0 p999_us=5000.0"),
            String.join("\n", lines));
        assertTrue(lines.contains("E2E_RATIO topo=3x3 p50=0.500 p99=0.333 p999=0.400"), String.join("\n", lines));
        assertTrue(lines.stream().anyMatch((line) -> line.startsWith("ours/kafka") && line.contains("0.50")),
            String.join("\n", lines));
    }

    @Test
    void shouldPrintNoRatioWhenOnlyKafkaRan()
    {
        final List<String> lines = ProduceLatencyHarness.summary(THREE_BY_THREE, List.of("kafka"),
            List.of(new RoundFiguresBuilder("kafka", 1, 400, 2000, 9000).build()));
        assertTrue(lines.contains("E2E system=kafka topo=3x3 rounds=1 p50_us=400.0 p99_us=2000.0 p999_us=9000.0"),
            String.join("\n", lines));
        assertTrue(lines.stream().noneMatch((line) -> line.contains("RATIO") || line.startsWith("ours")),
            String.join("\n", lines));
    }

    @Test
    void shouldPrintOneMachineReadableLinePerRound()
    {
        assertEquals("ROUND topo=3x3 system=kafka round=2 count=15000 sent=15000 errors=0 p50_us=400 p99_us=2000 " +
            "p999_us=9000 max_us=12000 cpu_pct=150",
            ProduceLatencyHarness.roundLine(new ProduceLatencyHarness.RoundFigures("3x3", "kafka", 2, 15000, 15000,
                0, 400, 2000, 9000, 12000, 149.6)));
    }

    @Test
    @Timeout(180)
    void shouldAcknowledgeAndRecordEveryMessageOfAShortRoundOnTheReferenceBroker(@TempDir final Path out)
        throws Exception
    {
        final HarnessOptions options = HarnessOptions.parse(new String[]{
            "--systems", "ours", "--topologies", "1x1", "--rounds", "1", "--rate", "200", "--warmup-s", "0",
            "--measure-s", "1", "--partitions", "2", "--out", out.toString() }, true);
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();
        final int status;
        try (PrintStream stream = new PrintStream(printed, true, StandardCharsets.UTF_8))
        {
            status = ProduceLatencyHarness.run(options, stream);
        }
        final String text = printed.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, text);
        assertTrue(text.contains("ROUND topo=1x1 system=ours round=1 count=200 sent=200 errors=0 "), text);
    }

    @Test
    @Timeout(180)
    void shouldAcknowledgeAndRecordEveryMessageOfAShortKafkaRound(@TempDir final Path out) throws Exception
    {
        final HarnessOptions options = HarnessOptions.parse(new String[]{
            "--systems", "kafka", "--topologies", "1x1", "--rounds", "1", "--rate", "200", "--warmup-s", "0",
            "--measure-s", "1", "--partitions", "2", "--out", out.toString() }, false);
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();
        final int status;
        try (PrintStream stream = new PrintStream(printed, true, StandardCharsets.UTF_8))
        {
            status = ProduceLatencyHarness.run(options, stream);
        }
        final String text = printed.toString(StandardCharsets.UTF_8);

        assertEquals(0, status, text);
        assertTrue(text.contains("ROUND topo=1x1 system=kafka round=1 count=200 sent=200 errors=0 "), text);
        assertTrue(text.contains("E2E system=kafka topo=1x1 rounds=1 p50_us="), text);
        assertTrue(Files.size(out.resolve("1x1-kafka-round1.hgrm")) > 0);
        assertTrue(Files.readAllLines(out.resolve(ProduceLatencyHarness.SUMMARY_FILE)).stream()
            .anyMatch((line) -> line.startsWith("E2E system=kafka topo=1x1")));
    }

    /** Builds the figures of one 3x3 round from the three percentiles a summary reads. */
    private record RoundFiguresBuilder(String system, int round, long p50Us, long p99Us, long p999Us)
    {
        ProduceLatencyHarness.RoundFigures build()
        {
            return new ProduceLatencyHarness.RoundFigures("3x3", system, round, 1000, 1000, 0, p50Us, p99Us, p999Us,
                p999Us, 100.0);
        }
    }
}
