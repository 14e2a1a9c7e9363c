package io.syncmirror.bench.e2e;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongConsumer;

import io.syncmirror.broker.cluster.EmbeddedCluster;

/**
 * The mirror link's round trip measured on the mirror connections themselves: every destination broker reports the
 * round trip of each of its sync report requests (Fetch v20 with MirrorReplicaInfo, MaxWaitMs 0, through the same
 * injected delay as the data fetches), and a paced {@link ApiVersionsLinkPinger} on the same link fills in while no
 * report flows (an ASYNC run sends none). Thread-safety: the sink is called from the destinations' reporter threads
 * and the pinger's thread; {@link #close()} stops both.
 */
final class MirrorLinkRoundTrips implements LinkRoundTripSource
{
    private final List<EmbeddedCluster> destinations;
    private final ApiVersionsLinkPinger pinger;
    private final AtomicBoolean open = new AtomicBoolean(true);

    MirrorLinkRoundTrips(final List<EmbeddedCluster> destinations, final ApiVersionsLinkPinger pinger)
    {
        this.destinations = destinations;
        this.pinger = pinger;
    }

    @Override
    public void start(final LongConsumer nanosSink)
    {
        final LongConsumer guarded = nanos ->
        {
            if (open.get())
            {
                nanosSink.accept(nanos);
            }
        };
        for (final EmbeddedCluster destination : destinations)
        {
            for (int node = 1; node <= destination.size(); node++)
            {
                destination.broker(node).mirrorLinkRoundTrips(guarded);
            }
        }
        pinger.start(guarded);
    }

    @Override
    public String describe()
    {
        return "round trips of the destinations' sync report requests on their mirror connections, and "
            + pinger.describe();
    }

    @Override
    public void close()
    {
        open.set(false);
        pinger.close();
    }
}
