package io.syncmirror.tools;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;

import org.apache.kafka.common.security.scram.internals.ScramCredentialUtils;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * Makes one line of the SCRAM credentials file a broker's SASL listener checks
 * ({@code syncmirror.sasl.scram.credentials.file}): the password is read from standard input, salted and hashed
 * with Kafka's own {@code ScramFormatter}, and only the salted form is printed, in Kafka's credential format.
 * Stateless.
 *
 * <pre>
 *   echo -n 'bob-secret' | bin/syncmirror-scram-credential.sh --mechanism SCRAM-SHA-512 --user bob >> scram.properties
 * </pre>
 */
public final class ScramCredentialCommand
{
    /** Kafka's default for {@code kafka-configs --add-config SCRAM-SHA-...=[iterations=...]}. */
    static final int DEFAULT_ITERATIONS = 4096;

    private ScramCredentialCommand()
    {
    }

    public static void main(final String[] args)
    {
        System.exit(run(args, System.in, System.out, System.err));
    }

    /** Runs the command; returns 0, or 2 for bad arguments or input. */
    static int run(final String[] args, final InputStream in, final PrintStream out, final PrintStream err)
    {
        String mechanismName = null;
        String user = null;
        int iterations = DEFAULT_ITERATIONS;
        for (int i = 0; i < args.length; i++)
        {
            final String flag = args[i];
            if (flag.equals("--help"))
            {
                out.println("Usage: syncmirror-scram-credential.sh --mechanism SCRAM-SHA-256|SCRAM-SHA-512 --user NAME "
                    + "[--iterations N] < password");
                return 0;
            }
            if (i + 1 >= args.length)
            {
                return usage(err, flag + " needs a value");
            }
            final String value = args[++i];
            switch (flag)
            {
                case "--mechanism" -> mechanismName = value;
                case "--user" -> user = value;
                case "--iterations" ->
                {
                    try
                    {
                        iterations = Integer.parseInt(value);
                    }
                    catch (final NumberFormatException e)
                    {
                        return usage(err, "--iterations is not a number: " + value);
                    }
                }
                default ->
                {
                    return usage(err, "unknown option " + flag);
                }
            }
        }
        final ScramMechanism mechanism = mechanismName == null ? null : ScramMechanism.forMechanismName(mechanismName);
        if (mechanism == null)
        {
            return usage(err, "--mechanism is one of " + ScramMechanism.mechanismNames());
        }
        if (user == null || user.isEmpty() || user.contains("=") || user.contains(","))
        {
            return usage(err, "--user NAME is required (without '=' or ',')");
        }
        if (iterations < mechanism.minIterations() || iterations > mechanism.maxIterations())
        {
            return usage(err, "--iterations must be " + mechanism.minIterations() + " to " + mechanism.maxIterations());
        }
        final String password;
        try
        {
            password = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).readLine();
        }
        catch (final IOException e)
        {
            return usage(err, "cannot read the password from standard input: " + e.getMessage());
        }
        if (password == null || password.isEmpty())
        {
            return usage(err, "no password on standard input");
        }
        try
        {
            out.println(mechanism.mechanismName() + "." + user + "=" + ScramCredentialUtils.credentialToString(
                new ScramFormatter(mechanism).generateCredential(password, iterations)));
            return 0;
        }
        catch (final NoSuchAlgorithmException e)
        {
            err.println("Error: this JVM has no " + mechanism.hashAlgorithm() + ": " + e.getMessage());
            return 1;
        }
    }

    private static int usage(final PrintStream err, final String message)
    {
        err.println("Error: " + message + " (see --help)");
        return 2;
    }
}
