package io.syncmirror.broker.controller;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.DeleteAclsResponse;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.apache.kafka.server.authorizer.AclCreateResult;
import org.apache.kafka.server.authorizer.AclDeleteResult;
import org.apache.kafka.server.authorizer.internals.CidrUtils;

import io.syncmirror.broker.metadata.MetadataRecord;

/**
 * The controller's access control entries, as Kafka's {@code AclControlManager} keeps them: each ACL under an id,
 * replayed from {@link MetadataRecord.Acl} and {@link MetadataRecord.RemoveAcl}. CreateAcls and DeleteAcls are
 * validated as Kafka validates them (a concrete resource type, LITERAL or PREFIXED pattern, a concrete operation,
 * ALLOW or DENY, a resource name, a host of {@code *}, an address or a CIDR block) and turned into records; an ACL
 * that exists already is a success that writes nothing.
 *
 * <p>Thread-safety: the controller's event thread, as all controller state.
 */
final class AclControl
{
    /** Kafka's bound on the records of one operation ({@code QuorumController.MAX_RECORDS_PER_USER_OP}). */
    static final int MAX_RECORDS_PER_OPERATION = 10_000;

    private final Supplier<Uuid> ids;
    /** By id, sorted: a snapshot writes them in one order. */
    private final Map<Uuid, StandardAcl> byId = new TreeMap<>();
    private final Map<StandardAcl, Uuid> existing = new java.util.HashMap<>();

    /** @param ids where new ACLs get their ids (the controller's id source, seeded in simulations) */
    AclControl(final Supplier<Uuid> ids)
    {
        this.ids = ids;
    }

    void replay(final MetadataRecord.Acl record)
    {
        final StandardAcl acl = record.acl();
        byId.put(record.id(), acl);
        existing.put(acl, record.id());
    }

    void replay(final MetadataRecord.RemoveAcl record)
    {
        final StandardAcl removed = byId.remove(record.id());
        if (removed != null)
        {
            existing.remove(removed);
        }
    }

    void snapshot(final Consumer<MetadataRecord> out)
    {
        byId.forEach((id, acl) -> out.accept(MetadataRecord.Acl.of(id, acl)));
    }

    int size()
    {
        return byId.size();
    }

    /** The id of {@code acl} when it is in force, or null. */
    Uuid idOf(final StandardAcl acl)
    {
        return existing.get(acl);
    }

    /** The outcome of a CreateAcls or DeleteAcls: one result per creation or filter, and the records. */
    record Outcome<R>(List<R> results, List<MetadataRecord> records)
    {
    }

    static CreateAclsResponseData createResponse(final Outcome<AclCreateResult> outcome)
    {
        final CreateAclsResponseData response = new CreateAclsResponseData();
        for (final AclCreateResult result : outcome.results())
        {
            final ApiError error = result.exception().map(ApiError::fromThrowable).orElse(ApiError.NONE);
            response.results().add(new CreateAclsResponseData.AclCreationResult().setErrorCode(error.error().code())
                .setErrorMessage(error.isFailure() ? error.message() : null));
        }
        return response;
    }

    static DeleteAclsResponseData deleteResponse(final Outcome<AclDeleteResult> outcome)
    {
        final DeleteAclsResponseData response = new DeleteAclsResponseData();
        outcome.results().forEach(result -> response.filterResults().add(DeleteAclsResponse.filterResult(result)));
        return response;
    }

    Outcome<AclCreateResult> create(final List<AclBinding> bindings)
    {
        final List<AclCreateResult> results = new ArrayList<>(bindings.size());
        final List<MetadataRecord> records = new ArrayList<>();
        final Set<StandardAcl> created = new HashSet<>();
        for (final AclBinding binding : bindings)
        {
            try
            {
                validate(binding);
            }
            catch (final RuntimeException e)
            {
                results.add(new AclCreateResult(e instanceof ApiException api ? api :
                    new UnknownServerException("Unknown error while trying to create ACL", e)));
                continue;
            }
            final StandardAcl acl = StandardAcl.fromAclBinding(binding);
            if (!existing.containsKey(acl) && created.add(acl))
            {
                if (records.size() >= MAX_RECORDS_PER_OPERATION)
                {
                    results.add(new AclCreateResult(new InvalidRequestException("Cannot create more than "
                        + MAX_RECORDS_PER_OPERATION + " acls in a single operation.")));
                    continue;
                }
                records.add(MetadataRecord.Acl.of(newId(), acl));
            }
            results.add(AclCreateResult.SUCCESS);
        }
        return new Outcome<>(results, records);
    }

    Outcome<AclDeleteResult> delete(final List<AclBindingFilter> filters)
    {
        final List<AclDeleteResult> results = new ArrayList<>(filters.size());
        final Set<Uuid> removed = new LinkedHashSet<>();
        for (final AclBindingFilter filter : filters)
        {
            if (filter.patternFilter().isUnknown() || filter.entryFilter().isUnknown())
            {
                results.add(new AclDeleteResult(new InvalidRequestException(filter.patternFilter().isUnknown() ?
                    "Unknown patternFilter." : "Unknown entryFilter.")));
                continue;
            }
            final List<AclDeleteResult.AclBindingDeleteResult> matched = new ArrayList<>();
            final Set<Uuid> ids = new LinkedHashSet<>();
            byId.forEach((id, acl) ->
            {
                final AclBinding binding = acl.toBinding();
                if (filter.matches(binding))
                {
                    matched.add(new AclDeleteResult.AclBindingDeleteResult(binding));
                    ids.add(id);
                }
            });
            final Set<Uuid> after = new LinkedHashSet<>(removed);
            after.addAll(ids);
            if (after.size() > MAX_RECORDS_PER_OPERATION)
            {
                results.add(new AclDeleteResult(ApiError.fromThrowable(new InvalidRequestException("Cannot remove "
                    + "more than " + MAX_RECORDS_PER_OPERATION + " acls in a single delete operation.")).exception()));
                continue;
            }
            removed.addAll(ids);
            results.add(new AclDeleteResult(matched));
        }
        final List<MetadataRecord> records = new ArrayList<>();
        removed.forEach(id -> records.add(new MetadataRecord.RemoveAcl(id)));
        return new Outcome<>(results, records);
    }

    Uuid newId()
    {
        Uuid id;
        do
        {
            id = ids.get();
        }
        while (byId.containsKey(id) || Uuid.RESERVED.contains(id));
        return id;
    }

    /** Kafka's checks of a new ACL, with its messages. */
    static void validate(final AclBinding binding)
    {
        switch (binding.pattern().resourceType())
        {
            case UNKNOWN, ANY -> throw new InvalidRequestException("Invalid resourceType " +
                binding.pattern().resourceType());
            default ->
            {
            }
        }
        switch (binding.pattern().patternType())
        {
            case LITERAL, PREFIXED ->
            {
            }
            default -> throw new InvalidRequestException("Invalid patternType " + binding.pattern().patternType());
        }
        switch (binding.entry().operation())
        {
            case UNKNOWN, ANY -> throw new InvalidRequestException("Invalid operation " +
                binding.entry().operation());
            default ->
            {
            }
        }
        switch (binding.entry().permissionType())
        {
            case ALLOW, DENY ->
            {
            }
            default -> throw new InvalidRequestException("Invalid permissionType " +
                binding.entry().permissionType());
        }
        if (binding.pattern().name() == null || binding.pattern().name().isEmpty())
        {
            throw new InvalidRequestException("Resource name should not be empty");
        }
        final String host = binding.entry().host();
        if (host == null || host.isEmpty())
        {
            throw new InvalidRequestException("Host pattern cannot be null or empty");
        }
        if (!host.equals("*") && host.contains("/"))
        {
            try
            {
                CidrUtils.validate(host);
            }
            catch (final IllegalArgumentException e)
            {
                throw new InvalidRequestException("Invalid CIDR host pattern " + host + ": " + e.getMessage());
            }
        }
    }
}
