package io.syncmirror.perf.report;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Results directories recorded from real runs on a 2-core machine, kept under {@code src/test/resources/recorded}:
 * a sync bench run at its defaults, a quick gate run of one build against itself (3 rounds), and a produce-latency
 * harness run (ours and Kafka, 1x1). Stateless.
 */
public final class Recorded
{
    private Recorded()
    {
    }

    public static Path syncBenchRun()
    {
        return resource("recorded/sync-bench-default");
    }

    public static Path gateRun()
    {
        return resource("recorded/gate-quick-aa");
    }

    public static Path produceLatencyRun()
    {
        return resource("recorded/produce-latency-1x1");
    }

    public static Path jmhRun()
    {
        return resource("recorded/gate-quick-aa/candidate");
    }

    static Path resource(final String name)
    {
        try
        {
            return Paths.get(Recorded.class.getClassLoader().getResource(name).toURI());
        }
        catch (final URISyntaxException | NullPointerException ex)
        {
            throw new IllegalStateException("test resource " + name + " is missing", ex);
        }
    }
}
