package io.syncmirror.broker.mirror;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Closing the __mirror_state store while another thread reads it. */
@Timeout(60)
class TopicMirrorStateStoreCloseTest
{
    @Test
    @DisplayName("close wakes a read in progress instead of waiting out its timeout: a broker stopping while its "
        + "coordinator reads __mirror_state from peers that are gone")
    void shouldWakeAReadInProgressOnClose() throws Exception
    {
        final int deadPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            deadPort = socket.getLocalPort();
        }
        final long readTimeoutMs = 120_000;
        final TopicMirrorStateStore store = new TopicMirrorStateStore(
            () -> Map.of("bootstrap.servers", "127.0.0.1:" + deadPort), config -> 1, readTimeoutMs);
        final CompletableFuture<Void> reading = CompletableFuture.runAsync(store::readAll);
        // Once the clients exist the reader is in, or about to enter, a blocking call no broker answers; a
        // consumer woken before such a call throws at its start.
        final long openDeadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!store.clientsOpen())
        {
            assertTrue(System.nanoTime() < openDeadlineNs, "the read never opened its clients");
            Thread.onSpinWait();
        }
        final long closeStartNs = System.nanoTime();
        store.close();
        try
        {
            reading.get(30, TimeUnit.SECONDS);
        }
        catch (final java.util.concurrent.ExecutionException e)
        {
            // The woken read fails; what matters is that it ended.
        }
        final long closeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closeStartNs);
        assertTrue(closeMs < 20_000, "close and the read ended " + closeMs + " ms after close, against a "
            + readTimeoutMs + " ms read bound");
    }
}
