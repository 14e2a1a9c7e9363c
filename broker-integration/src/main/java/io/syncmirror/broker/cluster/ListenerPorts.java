package io.syncmirror.broker.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;

/** Listener ports for the brokers a test or an example starts on loopback. */
public final class ListenerPorts
{
    private static final Random RANDOM = new Random();
    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    private ListenerPorts()
    {
    }

    /**
     * A free loopback port below the kernel's ephemeral range. A port the kernel hands out (bind to 0) can be handed
     * out again, as the local end of some client's connection, before the broker that is meant to listen on it has
     * started: seen with three clusters' worth of clients connecting while the last brokers booted. Below the
     * ephemeral range no outgoing connection is ever given a port. Never one handed out before in this JVM.
     */
    public static synchronized int next()
    {
        final int ephemeralStart = ephemeralRangeStart();
        final int low = Math.max(1024, ephemeralStart - 12_000);
        if (ephemeralStart - low < 100)
        {
            throw new IllegalStateException("the ephemeral port range starts at " + ephemeralStart);
        }
        for (int attempt = 0; attempt < 1000; attempt++)
        {
            final int port = low + RANDOM.nextInt(ephemeralStart - low);
            if (HANDED_OUT.contains(port))
            {
                continue;
            }
            try (ServerSocket socket = new ServerSocket())
            {
                socket.setReuseAddress(false);
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                HANDED_OUT.add(port);
                return port;
            }
            catch (final IOException taken)
            {
                // in use: try another
            }
        }
        throw new IllegalStateException("no free port between " + low + " and " + ephemeralStart);
    }

    private static int ephemeralRangeStart()
    {
        try
        {
            // readAllLines, not readString: a /proc file reports size 0, and readString trusts the size.
            final String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0);
            return Integer.parseInt(range.trim().split("\\s+")[0]);
        }
        catch (final IOException | RuntimeException e)
        {
            return 32_768; // Linux's default
        }
    }
}
