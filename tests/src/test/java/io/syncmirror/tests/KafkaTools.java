package io.syncmirror.tests;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.apache.kafka.common.utils.internals.Exit;

/**
 * Runs one of Kafka's own command-line tools ({@code kafka-tools} 4.4) through its {@code main}, in this JVM, and
 * returns what it printed and the status it first exited with. Kafka's tools end through {@link Exit}; its
 * procedure is replaced for the run by one that throws, so a tool's exit ends the run instead of the JVM. Not thread-safe:
 * the tools print to {@code System.out} and {@code System.err}.
 */
final class KafkaTools
{
    /** What one run printed, and its exit status (0 when the tool returned without calling exit). */
    record Output(int status, String out, String err)
    {
        @Override
        public String toString()
        {
            return "exit " + status + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }

    /** A tool's entry point. */
    interface Main
    {
        void run(String[] args) throws Exception;
    }

    private static final class ToolExit extends RuntimeException
    {
        private static final long serialVersionUID = 1L;
        final int status;

        ToolExit(final int status)
        {
            super("exit " + status, null, false, false);
            this.status = status;
        }
    }

    private KafkaTools()
    {
    }

    static Output run(final String name, final Main main, final List<String> args) throws Exception
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final PrintStream originalOut = System.out;
        final PrintStream originalErr = System.err;
        // The first exit is the tool's answer: some tools (TopicCommand) exit inside a catch-all that would
        // report the procedure's exception as a failure and exit again.
        final int[] firstExit = {-1};
        Exit.setExitProcedure((status, message) ->
        {
            if (firstExit[0] < 0)
            {
                firstExit[0] = status;
            }
            throw new ToolExit(status);
        });
        int status = 0;
        try
        {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            main.run(args.toArray(new String[0]));
        }
        catch (final ToolExit e)
        {
            status = firstExit[0];
        }
        finally
        {
            System.setOut(originalOut);
            System.setErr(originalErr);
            Exit.resetExitProcedure();
        }
        final Output output = new Output(status, out.toString(StandardCharsets.UTF_8),
            err.toString(StandardCharsets.UTF_8));
        // Echoed so that the run stays in the test's report beside the broker's log lines.
        originalOut.println(name + " " + String.join(" ", args) + "\n" + output);
        return output;
    }
}
