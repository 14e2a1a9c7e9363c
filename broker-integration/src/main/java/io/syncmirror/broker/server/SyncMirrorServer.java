package io.syncmirror.broker.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.common.config.ConfigException;

/**
 * The broker process: {@code SyncMirrorServer <server.properties>} starts one broker and runs until it is
 * stopped (SIGTERM or Ctrl-C stops it cleanly). A bad or unreadable properties file ends the process with exit
 * code 2 and one line naming the problem; a start failure (a port in use, an unreadable log dir) with exit code 1.
 */
public final class SyncMirrorServer
{
    private SyncMirrorServer()
    {
    }

    public static void main(final String[] args)
    {
        if (args.length != 1 || "-h".equals(args[0]) || "--help".equals(args[0]))
        {
            System.err.println("usage: syncmirror-server.sh <server.properties>");
            System.exit(2);
        }
        final BrokerConfig config;
        try
        {
            config = BrokerConfig.fromProperties(load(Path.of(args[0])));
        }
        catch (final IOException ex)
        {
            System.err.println("error: cannot read " + args[0] + ": " + ex.getMessage());
            System.exit(2);
            return;
        }
        catch (final ConfigException ex)
        {
            System.err.println("error: invalid configuration in " + args[0] + ": " + ex.getMessage());
            System.exit(2);
            return;
        }
        final BrokerServer broker = new BrokerServer(config);
        final CountDownLatch stopped = new CountDownLatch(1);
        try
        {
            broker.start();
        }
        catch (final RuntimeException ex)
        {
            System.err.println("error: broker " + config.nodeId() + " failed to start: " + ex);
            ex.printStackTrace();
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            broker.close();
            stopped.countDown();
        }, "broker-shutdown"));
        try
        {
            stopped.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static Properties load(final Path file) throws IOException
    {
        final Properties properties = new Properties();
        if (!Files.isReadable(file))
        {
            throw new IOException("no such readable file");
        }
        try (InputStream in = Files.newInputStream(file))
        {
            properties.load(in);
        }
        return properties;
    }
}
