package io.syncmirror.bench.e2e;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.protocol.MirrorWireClient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class ApiVersionsLinkPingerTest
{
    @Test
    void shouldReportRoundTripsThatIncludeTheInjectedDelayBothWays() throws Exception
    {
        try (EmbeddedCluster source = EmbeddedCluster.start(1, EmbeddedCluster.memoryStorage()))
        {
            final ConcurrentLinkedQueue<Long> roundTripsNs = new ConcurrentLinkedQueue<>();
            final List<MirrorWireClient.HostPort> brokers = List.of(new MirrorWireClient.HostPort("127.0.0.1",
                source.port(1)));
            try (ApiVersionsLinkPinger pinger = new ApiVersionsLinkPinger(brokers, 2, 3.0))
            {
                pinger.start(roundTripsNs::add);
                final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (roundTripsNs.size() < 20 && System.nanoTime() < deadlineNs)
                {
                    Thread.sleep(50);
                }
                assertEquals(0, pinger.failures());
                assertTrue(pinger.describe().contains("3.000 ms one way"), pinger.describe());
            }
            assertTrue(roundTripsNs.size() >= 20, "round trips: " + roundTripsNs.size());
            for (final long roundTripNs : roundTripsNs)
            {
                assertTrue(roundTripNs >= TimeUnit.MILLISECONDS.toNanos(6), "at least twice 3 ms: " + roundTripNs);
            }
            final int afterClose = roundTripsNs.size();
            Thread.sleep(200);
            assertEquals(afterClose, roundTripsNs.size(), "no round trip is reported after close");
        }
    }

    @Test
    void shouldCountFailuresWhenTheSourceDoesNotAnswerAndStopOnClose() throws Exception
    {
        final int deadPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1,
            java.net.InetAddress.getLoopbackAddress()))
        {
            deadPort = socket.getLocalPort();
        }
        final ConcurrentLinkedQueue<Long> roundTripsNs = new ConcurrentLinkedQueue<>();
        final ApiVersionsLinkPinger pinger = new ApiVersionsLinkPinger(List.of(
            new MirrorWireClient.HostPort("127.0.0.1", deadPort)), 1, 0.0);
        pinger.start(roundTripsNs::add);
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pinger.failures() == 0 && System.nanoTime() < deadlineNs)
        {
            Thread.sleep(20);
        }
        pinger.close();
        assertTrue(pinger.failures() > 0);
        assertTrue(roundTripsNs.isEmpty());
        assertFalse(Thread.getAllStackTraces().keySet().stream()
            .anyMatch(t -> t.getName().startsWith("link-rtt-pinger") && t.isAlive()), "pinger threads stopped");
    }
}
