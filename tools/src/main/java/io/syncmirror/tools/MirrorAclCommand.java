package io.syncmirror.tools;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.utils.internals.SecurityUtils;

import io.syncmirror.protocol.ClusterMirrorsResource;

/**
 * Grants, revokes and lists permissions on the spec's CLUSTER_MIRRORS resource ({@link ClusterMirrorsResource}),
 * which Kafka's {@code kafka-acls.sh} cannot name: ALTER (manage mirrors, {@code --release-sync}), DESCRIBE
 * (describe them) or ALL, to principals and from hosts as Kafka's ACLs take them. It uses Kafka's own Admin ACL API,
 * so the ACLs are ordinary ones of the cluster metadata and {@code kafka-acls.sh --list} shows them as
 * {@code Cluster:kafka-cluster-mirrors}. Stateless.
 *
 * <pre>
 *   bin/syncmirror-mirror-acls.sh --bootstrap-server b1:9094 --command-config admin.properties --add \
 *       --allow-principal User:ops --operation Alter
 * </pre>
 */
public final class MirrorAclCommand
{
    private static final long TIMEOUT_S = 30;
    private static final String USAGE = "Usage: syncmirror-mirror-acls.sh --bootstrap-server HOST:PORT "
        + "[--command-config FILE] (--add | --remove | --list) [--allow-principal P]... [--deny-principal P]... "
        + "[--operation Alter|Describe|All]... [--host HOST]";

    private MirrorAclCommand()
    {
    }

    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command; returns 0, 1 when the cluster refused or could not be reached, 2 for bad arguments. */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        String bootstrap = null;
        String commandConfig = null;
        String action = null;
        String host = "*";
        final List<String> allow = new ArrayList<>();
        final List<String> deny = new ArrayList<>();
        final List<AclOperation> operations = new ArrayList<>();
        for (int i = 0; i < args.length; i++)
        {
            final String flag = args[i];
            switch (flag)
            {
                case "--help" ->
                {
                    out.println(USAGE);
                    return 0;
                }
                case "--add", "--remove", "--list" ->
                {
                    if (action != null)
                    {
                        return usage(err, "only one of --add, --remove, --list");
                    }
                    action = flag;
                    continue;
                }
                default ->
                {
                }
            }
            if (i + 1 >= args.length)
            {
                return usage(err, flag + " needs a value");
            }
            final String value = args[++i];
            switch (flag)
            {
                case "--bootstrap-server" -> bootstrap = value;
                case "--command-config" -> commandConfig = value;
                case "--allow-principal" -> allow.add(value);
                case "--deny-principal" -> deny.add(value);
                case "--host" -> host = value;
                case "--operation" ->
                {
                    final AclOperation operation = switch (value.toLowerCase(Locale.ROOT))
                    {
                        case "alter" -> AclOperation.ALTER;
                        case "describe" -> AclOperation.DESCRIBE;
                        case "all" -> AclOperation.ALL;
                        default -> null;
                    };
                    if (operation == null)
                    {
                        return usage(err, "--operation must be Alter, Describe or All, not " + value);
                    }
                    operations.add(operation);
                }
                default ->
                {
                    return usage(err, "unknown option " + flag);
                }
            }
        }
        if (bootstrap == null || action == null)
        {
            return usage(err, bootstrap == null ? "--bootstrap-server is required" :
                "one of --add, --remove, --list is required");
        }
        if (!action.equals("--list") && (allow.isEmpty() && deny.isEmpty() || operations.isEmpty()))
        {
            return usage(err, action + " needs --allow-principal or --deny-principal, and --operation");
        }
        for (final String principal : concat(allow, deny))
        {
            try
            {
                SecurityUtils.parseKafkaPrincipal(principal);
            }
            catch (final IllegalArgumentException e)
            {
                return usage(err, "not a principal (TYPE:NAME, e.g. User:ops): " + principal);
            }
        }
        final Properties config = new Properties();
        if (commandConfig != null)
        {
            try (InputStream in = new FileInputStream(commandConfig))
            {
                config.load(in);
            }
            catch (final IOException e)
            {
                return usage(err, "cannot read --command-config " + commandConfig + ": " + e.getMessage());
            }
        }
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(config))
        {
            switch (action)
            {
                case "--add" -> admin.createAcls(bindings(allow, deny, operations, host)).all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
                case "--remove" ->
                {
                    final List<AclBindingFilter> filters = new ArrayList<>();
                    bindings(allow, deny, operations, host).forEach(b -> filters.add(b.toFilter()));
                    admin.deleteAcls(filters).all().get(TIMEOUT_S, TimeUnit.SECONDS);
                }
                default ->
                {
                }
            }
            for (final AclBinding binding : admin.describeAcls(new AclBindingFilter(
                ClusterMirrorsResource.PATTERN.toFilter(), AccessControlEntryFilter.ANY)).values()
                .get(TIMEOUT_S, TimeUnit.SECONDS))
            {
                final AccessControlEntry entry = binding.entry();
                out.println(String.format("%s %s %s from host %s on %s", entry.principal(), entry.permissionType(),
                    entry.operation(), entry.host(), ClusterMirrorsResource.NAME));
            }
            return 0;
        }
        catch (final ExecutionException e)
        {
            err.println("Error: " + e.getCause().getMessage());
            return 1;
        }
        catch (final TimeoutException e)
        {
            err.println("Error: no answer from " + bootstrap + " within " + TIMEOUT_S + " s");
            return 1;
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return 1;
        }
        catch (final RuntimeException e)
        {
            err.println("Error: " + e.getMessage());
            return 1;
        }
    }

    private static List<AclBinding> bindings(final List<String> allow, final List<String> deny,
        final List<AclOperation> operations, final String host)
    {
        final List<AclBinding> out = new ArrayList<>();
        for (final AclOperation operation : operations)
        {
            allow.forEach(p -> out.add(new AclBinding(ClusterMirrorsResource.PATTERN,
                new AccessControlEntry(p, host, operation, AclPermissionType.ALLOW))));
            deny.forEach(p -> out.add(new AclBinding(ClusterMirrorsResource.PATTERN,
                new AccessControlEntry(p, host, operation, AclPermissionType.DENY))));
        }
        return out;
    }

    private static List<String> concat(final List<String> a, final List<String> b)
    {
        final List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static int usage(final PrintStream err, final String problem)
    {
        err.println("Error: " + problem);
        err.println(USAGE);
        return 2;
    }
}
