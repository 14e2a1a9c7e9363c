package io.syncmirror.bench.e2e;

import java.nio.file.Paths;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HarnessOptionsTest
{
    @Test
    void shouldDefaultToBothTopologiesAndBothSystemsWhenOursIsWiredIn()
    {
        final HarnessOptions options = HarnessOptions.parse(new String[0], true);
        assertEquals(List.of(Topology.parse("1x1"), Topology.parse("3x3")), options.topologies());
        assertEquals(List.of("ours", "kafka"), options.systems());
        assertEquals(3, options.rounds());
        assertEquals(1000, options.ratePerSecond());
        assertEquals(100, options.messageBytes());
        assertEquals(5, options.warmupSeconds());
        assertEquals(15, options.measureSeconds());
        assertEquals(1, options.partitions());
        assertNull(options.out());
    }

    @Test
    void shouldDefaultToKafkaAloneWhenOursIsNotWiredIn()
    {
        assertEquals(List.of("kafka"), HarnessOptions.parse(new String[0], false).systems());
    }

    @Test
    void shouldReadEveryFlag()
    {
        final HarnessOptions options = HarnessOptions.parse(new String[]{
            "--topologies", "3x3", "--systems", "kafka,ours", "--rounds", "5", "--rate", "2000", "--size", "512",
            "--warmup-s", "0", "--measure-s", "30", "--partitions", "4", "--out", "results/x" }, true);
        assertEquals(List.of(Topology.parse("3x3")), options.topologies());
        assertEquals(List.of("kafka", "ours"), options.systems());
        assertEquals(5, options.rounds());
        assertEquals(2000, options.ratePerSecond());
        assertEquals(512, options.messageBytes());
        assertEquals(0, options.warmupSeconds());
        assertEquals(30, options.measureSeconds());
        assertEquals(4, options.partitions());
        assertEquals(Paths.get("results/x"), options.out());
    }

    @Test
    void shouldRefuseOursUntilItIsWiredIn()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> HarnessOptions.parse(new String[]{ "--systems", "ours,kafka" }, false));
        assertTrue(ex.getMessage().contains("not wired in"), ex.getMessage());
        assertTrue(OursClusterFactory.isAvailable(), "the reference broker is wired in: ours must be selectable");
    }

    @Test
    void shouldRejectBadCommandLines()
    {
        final String[][] bad = {
            { "--bogus" },
            { "--rounds" },
            { "--rounds", "--rate", "5" },
            { "--rounds", "0" },
            { "--rate", "fast" },
            { "--rate", "0" },
            { "--size", "-1" },
            { "--measure-s", "0" },
            { "--partitions", "0" },
            { "--systems", "pulsar" },
            { "--systems", "kafka,kafka" },
            { "--systems", "kafka," },
            { "--topologies", "1x1,1x1" },
            { "--topologies", "2x3" },
            { "measure" } };
        for (final String[] args : bad)
        {
            assertThrows(IllegalArgumentException.class, () -> HarnessOptions.parse(args, true), String.join(" ", args));
        }
    }

    @Test
    void shouldRecogniseAskingForHelp()
    {
        assertTrue(HarnessOptions.wantsHelp(new String[]{ "--rounds", "1", "--help" }));
        assertTrue(HarnessOptions.wantsHelp(new String[]{ "-h" }));
        assertFalse(HarnessOptions.wantsHelp(new String[]{ "--rounds", "1" }));
    }
}
