package io.syncmirror.perf.gate;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.syncmirror.perf.data.ResultLine;

/**
 * One build's sync bench running as a server ({@code bin/syncmirror-bench.sh --serve}, that build's own script):
 * set up once, then told to measure a window or promote, one command at a time. Every line it prints goes to
 * its log; the answers are read from it. Not thread-safe: the gate's thread drives it, one reader thread
 * collects its output.
 */
final class BenchServer implements AutoCloseable
{
    private static final String END = "\u0000end";

    private final String side;
    private final Process process;
    private final Writer commands;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> tail = new ArrayList<>();
    private final Path log;

    private BenchServer(final String side, final Process process, final Path log) throws IOException
    {
        this.side = side;
        this.process = process;
        this.log = log;
        this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        final PrintStream logStream = new PrintStream(Files.newOutputStream(log), true, StandardCharsets.UTF_8);
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = in.readLine()) != null)
                {
                    logStream.println(line);
                    lines.add(line);
                }
            }
            catch (final IOException ex)
            {
                logStream.println("(gate: reading the bench's output failed: " + ex + ")");
            }
            finally
            {
                logStream.close();
                lines.add(END);
            }
        }, "gate-bench-" + side);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code checkout}'s bench with {@code suite}'s flags, results in {@code resultsDir}, without waiting for
     * its setup ({@link #awaitReady}).
     */
    static BenchServer launch(final String side, final Path checkout, final Suite suite, final Path resultsDir)
        throws GateException
    {
        final Path script = checkout.resolve("bin/syncmirror-bench.sh");
        if (!Files.isRegularFile(script))
        {
            throw new GateException(side + ": " + checkout + " has no bin/syncmirror-bench.sh: not a syncmirror "
                + "checkout");
        }
        final List<String> command = new ArrayList<>(List.of("bash", script.toString()));
        command.addAll(suite.benchArgs(resultsDir));
        try
        {
            Files.createDirectories(resultsDir);
            final Path log = resultsDir.resolve("bench.log");
            final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            // The suite's options first; a caller's own JAVA_OPTS after them, so that it can still override.
            builder.environment().merge("JAVA_OPTS", suite.jvmOptions(), (own, suites) -> suites + " " + own);
            final Process process = builder.start();
            return new BenchServer(side, process, log);
        }
        catch (final IOException ex)
        {
            throw new GateException(side + ": cannot start " + script + ": " + ex.getMessage(), ex);
        }
    }

    /** Waits until the bench is set up and serving. */
    void awaitReady(final long timeoutSeconds) throws GateException
    {
        final String line = next(timeoutSeconds, "set up");
        if (!line.equals("READY"))
        {
            throw new GateException(side + ": the bench did not start serving: " + line);
        }
    }

    /** Measures one window of {@code mode} labelled {@code label}; returns its RESULT line. */
    ResultLine measure(final String mode, final String label, final long timeoutSeconds) throws GateException
    {
        startMeasure(mode, label, 0);
        return awaitMeasure(mode, label, timeoutSeconds);
    }

    /** Starts a window of {@code mode}, of {@code seconds} (0: the suite's window length), without waiting. */
    void startMeasure(final String mode, final String label, final int seconds) throws GateException
    {
        send("measure " + mode + " " + label + (seconds > 0 ? " " + seconds : ""));
    }

    /** Waits for the window {@link #startMeasure} started and returns its RESULT line. */
    ResultLine awaitMeasure(final String mode, final String label, final long timeoutSeconds) throws GateException
    {
        final String line = next(timeoutSeconds, "measure " + mode + " " + label);
        if (!ResultLine.is(line))
        {
            throw new GateException(side + ": measure " + mode + " " + label + " failed: " + line);
        }
        try
        {
            return ResultLine.parse(line);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new GateException(side + ": " + ex.getMessage(), ex);
        }
    }

    /** Starts promoting every topic to SYNC, without waiting ({@link #awaitPromote}). */
    void startPromote() throws GateException
    {
        send("promote");
    }

    /** Waits for the promotion {@link #startPromote} started; returns the seconds it took. */
    double awaitPromote(final long timeoutSeconds) throws GateException
    {
        final String line = next(timeoutSeconds, "promote");
        if (!line.startsWith("PROMOTED seconds="))
        {
            throw new GateException(side + ": the promotion to SYNC failed: " + line);
        }
        return Double.parseDouble(line.substring("PROMOTED seconds=".length()));
    }

    private void send(final String command) throws GateException
    {
        try
        {
            commands.write(command + "\n");
            commands.flush();
        }
        catch (final IOException ex)
        {
            throw new GateException(side + ": the bench stopped taking commands (" + ex.getMessage() + "); its log: "
                + log, ex);
        }
    }

    /**
     * The next answer line (READY, RESULT, PROMOTED or ERROR), skipping progress and WARNING lines; the end of the
     * output or the timeout is a {@link GateException} with the last lines seen.
     */
    private String next(final long timeoutSeconds, final String waitingFor) throws GateException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (true)
        {
            final String line;
            try
            {
                line = lines.poll(Math.max(0L, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new GateException(side + ": interrupted waiting to " + waitingFor, ex);
            }
            if (line == null)
            {
                throw new GateException(side + ": no answer to '" + waitingFor + "' within " + timeoutSeconds + " s; "
                    + "last lines: " + tail + "; log: " + log);
            }
            if (line.equals(END))
            {
                lines.add(END);
                throw new GateException(side + ": the bench exited" + exitStatus() + " while waiting to " + waitingFor
                    + "; last lines: " + tail + "; log: " + log);
            }
            tail.add(line);
            if (tail.size() > 5)
            {
                tail.remove(0);
            }
            if (line.equals("READY") || ResultLine.is(line) || line.startsWith("PROMOTED ") ||
                line.startsWith("ERROR"))
            {
                return line;
            }
        }
    }

    private String exitStatus()
    {
        try
        {
            return process.waitFor(5, TimeUnit.SECONDS) ? " with status " + process.exitValue() : "";
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** Tells the bench to quit; {@link #close} then waits for it. Quitting several first lets them exit at once. */
    void quit()
    {
        try
        {
            commands.write("quit\n");
            commands.close();
        }
        catch (final IOException ex)
        {
            // Already gone: nothing to tell.
        }
    }

    /** Tells the bench to quit if not yet told, and stops it if it has not exited within 30 s. */
    @Override
    public void close()
    {
        quit();
        try
        {
            if (!process.waitFor(30, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
