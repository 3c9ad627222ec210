#include "vcluster/openapi_schemas.h"

#include <utility>
#include <vector>

namespace fitscale::vcluster {
namespace {

// A field: its JSON name, its type in a small notation, and its description.
//   string integer number boolean time   scalars (time: an RFC 3339 string)
//   object                               open object: any field accepted, not validated
//   labels                               map of strings
//   quantities                           map of resource quantities
//   int-or-string                        an integer or a string such as "25%"
//   []T                                  array of T
//   #Name                                the component Name; "Pod" is io.k8s.api.core.v1.Pod,
//                                        "meta.ObjectMeta" is io.k8s.apimachinery.pkg.apis.meta.v1
struct Field {
  std::string name;
  std::string type;
  std::string description;
};

std::string component(const std::string& short_name) {
  if (short_name.rfind("meta.", 0) == 0)
    return "io.k8s.apimachinery.pkg.apis.meta.v1." + short_name.substr(5);
  if (short_name.rfind("batch.", 0) == 0) return "io.k8s.api.batch.v1." + short_name.substr(6);
  if (short_name.rfind("coordination.", 0) == 0)
    return "io.k8s.api.coordination.v1." + short_name.substr(13);
  if (short_name.rfind("policy.", 0) == 0) return "io.k8s.api.policy.v1." + short_name.substr(7);
  if (short_name.rfind("scheduling.", 0) == 0)
    return "io.k8s.api.scheduling.v1." + short_name.substr(11);
  if (short_name == "Quantity") return "io.k8s.apimachinery.pkg.api.resource.Quantity";
  return "io.k8s.api.core.v1." + short_name;
}

nlohmann::json type_schema(const std::string& t) {
  if (t.rfind("[]", 0) == 0) return {{"type", "array"}, {"items", type_schema(t.substr(2))}};
  if (t[0] == '#') return {{"$ref", "#/components/schemas/" + component(t.substr(1))}};
  if (t == "string") return {{"type", "string"}};
  if (t == "integer") return {{"type", "integer"}, {"format", "int64"}};
  if (t == "number") return {{"type", "number"}};
  if (t == "boolean") return {{"type", "boolean"}};
  if (t == "time") return {{"type", "string"}, {"format", "date-time"}};
  if (t == "labels") return {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}};
  if (t == "quantities")
    return {{"type", "object"}, {"additionalProperties", type_schema("#Quantity")}};
  if (t == "int-or-string")
    return {{"type", "string"}, {"format", "int-or-string"}, {"x-kubernetes-int-or-string", true}};
  return {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};  // "object"
}

// The fields every kind starts with.
std::vector<Field> kind_fields(const std::string& spec_type, const std::string& spec_desc) {
  std::vector<Field> f = {
      {"apiVersion", "string",
       "APIVersion defines the versioned schema of this representation of an object. Servers "
       "should convert recognized schemas to the latest internal value, and may reject "
       "unrecognized values."},
      {"kind", "string",
       "Kind is a string value representing the REST resource this object represents. In "
       "CamelCase."},
      {"metadata", "#meta.ObjectMeta", "Standard object's metadata."},
  };
  if (!spec_type.empty()) f.push_back({"spec", spec_type, spec_desc});
  return f;
}

Field status_field() {
  return {"status", "object", "Most recently observed status. Populated by the system. Read-only."};
}

struct Builder {
  nlohmann::json schemas = nlohmann::json::object();

  void add(const std::string& short_name, const std::string& description,
           const std::vector<Field>& fields, const std::vector<std::string>& gvk = {}) {
    nlohmann::json props = nlohmann::json::object();
    for (const auto& f : fields) {
      nlohmann::json s = type_schema(f.type);
      s["description"] = f.description;
      props[f.name] = std::move(s);
    }
    nlohmann::json schema = {
        {"description", description}, {"type", "object"}, {"properties", std::move(props)}};
    if (gvk.size() == 3) {
      schema["x-kubernetes-group-version-kind"] = {
          {{"group", gvk[0]}, {"version", gvk[1]}, {"kind", gvk[2]}}};
    }
    schemas[component(short_name)] = std::move(schema);
  }
};

nlohmann::json build() {
  Builder b;
  b.schemas[component("Quantity")] = {
      {"description",
       "Quantity is a fixed-point representation of a number, such as 100m, 1.5Gi or 2."},
      {"type", "string"},
      {"x-kubernetes-int-or-string", true}};
  b.add(
      "meta.ObjectMeta",
      "ObjectMeta is metadata that all persisted resources must have, which includes all "
      "objects users must create.",
      {{"annotations", "labels",
        "Annotations is an unstructured key value map stored with a resource that may be set "
        "by external tools to store and retrieve arbitrary metadata."},
       {"creationTimestamp", "time",
        "CreationTimestamp is a timestamp representing the server time when this object was "
        "created. Populated by the system. Read-only."},
       {"deletionGracePeriodSeconds", "integer",
        "Number of seconds allowed for this object to gracefully terminate before it will be "
        "removed from the system. Only set when deletionTimestamp is also set."},
       {"deletionTimestamp", "time",
        "DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted. "
        "Set by the server when a graceful deletion is requested by the user."},
       {"finalizers", "[]string", "Must be empty before the object is deleted from the registry."},
       {"generateName", "string",
        "GenerateName is an optional prefix, used by the server, to generate a unique name "
        "ONLY IF the Name field has not been provided."},
       {"generation", "integer",
        "A sequence number representing a specific generation of the desired state."},
       {"labels", "labels",
        "Map of string keys and values that can be used to organize and categorize (scope "
        "and select) objects."},
       {"managedFields", "[]object",
        "ManagedFields maps workflow-id and version to the set of fields that are managed by "
        "that workflow."},
       {"name", "string", "Name must be unique within a namespace."},
       {"namespace", "string",
        "Namespace defines the space within which each name must be unique."},
       {"ownerReferences", "[]#meta.OwnerReference",
        "List of objects depended by this object. If ALL objects in the list have been "
        "deleted, this object will be garbage collected."},
       {"resourceVersion", "string",
        "An opaque value that represents the internal version of this object."},
       {"selfLink", "string", "Deprecated: selfLink is a legacy read-only field."},
       {"uid", "string",
        "UID is the unique in time and space value for this object. Populated by the "
        "system. Read-only."}});
  b.add("meta.OwnerReference",
        "OwnerReference contains enough information to let you identify an owning object.",
        {{"apiVersion", "string", "API version of the referent."},
         {"blockOwnerDeletion", "boolean",
          "If true, AND if the owner has the \"foregroundDeletion\" finalizer, then the owner "
          "cannot be deleted from the key-value store until this reference is removed."},
         {"controller", "boolean", "If true, this reference points to the managing controller."},
         {"kind", "string", "Kind of the referent."},
         {"name", "string", "Name of the referent."},
         {"uid", "string", "UID of the referent."}});
  b.add("meta.LabelSelector",
        "A label selector is a label query over a set of resources. An empty label selector "
        "matches all objects.",
        {{"matchExpressions", "[]#meta.LabelSelectorRequirement",
          "matchExpressions is a list of label selector requirements. The requirements are "
          "ANDed."},
         {"matchLabels", "labels",
          "matchLabels is a map of {key,value} pairs; each is equivalent to an element of "
          "matchExpressions with operator In and the value as its only value."}});
  b.add("meta.LabelSelectorRequirement",
        "A label selector requirement is a selector that contains values, a key, and an "
        "operator that relates the key and values.",
        {{"key", "string", "key is the label key that the selector applies to."},
         {"operator", "string",
          "operator represents a key's relationship to a set of values: "
          "In, NotIn, Exists and DoesNotExist."},
         {"values", "[]string", "values is an array of string values."}});

  // --- core/v1 Pod
  auto pod_fields = kind_fields("#PodSpec", "Specification of the desired behavior of the pod.");
  pod_fields.push_back(status_field());
  b.add("Pod",
        "Pod is a collection of containers that can run on a host. This resource is created by "
        "clients and scheduled onto hosts.",
        pod_fields, {"", "v1", "Pod"});
  b.add("PodSpec", "PodSpec is a description of a pod.",
        {{"activeDeadlineSeconds", "integer",
          "Optional duration in seconds the pod may be active on the node relative to StartTime "
          "before the system will actively try to mark it failed and kill associated containers."},
         {"affinity", "object", "If specified, the pod's scheduling constraints."},
         {"automountServiceAccountToken", "boolean",
          "AutomountServiceAccountToken indicates whether a service account token should be "
          "automatically mounted."},
         {"containers", "[]#Container",
          "List of containers belonging to the pod. Containers cannot currently be added or "
          "removed. There must be at least one container in a Pod. Cannot be updated."},
         {"dnsConfig", "object", "Specifies the DNS parameters of a pod."},
         {"dnsPolicy", "string", "Set DNS policy for the pod. Defaults to \"ClusterFirst\"."},
         {"enableServiceLinks", "boolean",
          "EnableServiceLinks indicates whether information about services should be injected "
          "into pod's environment variables."},
         {"ephemeralContainers", "[]object", "List of ephemeral containers run in this pod."},
         {"hostAliases", "[]object",
          "HostAliases is an optional list of hosts and IPs that will be injected into the pod's "
          "hosts file if specified."},
         {"hostIPC", "boolean", "Use the host's ipc namespace. Optional: Default to false."},
         {"hostNetwork", "boolean",
          "Host networking requested for this pod. Use the host's network namespace."},
         {"hostPID", "boolean", "Use the host's pid namespace. Optional: Default to false."},
         {"hostUsers", "boolean", "Use the host's user namespace. Optional: Default to true."},
         {"hostname", "string",
          "Specifies the hostname of the Pod. If not specified, the pod's hostname will be set to "
          "a system-defined value."},
         {"imagePullSecrets", "[]object",
          "ImagePullSecrets is an optional list of references to secrets in the same namespace to "
          "use for pulling any of the images used by this PodSpec."},
         {"initContainers", "[]#Container",
          "List of initialization containers belonging to the pod."},
         {"nodeName", "string",
          "NodeName indicates in which node this pod is scheduled. If empty, this pod is a "
          "candidate for scheduling by the scheduler defined in schedulerName."},
         {"nodeSelector", "labels",
          "NodeSelector is a selector which must be true for the pod to fit on a node."},
         {"os", "object", "Specifies the OS of the containers in the pod."},
         {"overhead", "quantities",
          "Overhead represents the resource overhead associated with running a pod for a given "
          "RuntimeClass."},
         {"preemptionPolicy", "string",
          "PreemptionPolicy is the Policy for preempting pods with lower priority. One of Never, "
          "PreemptLowerPriority."},
         {"priority", "integer",
          "The priority value. Various system components use this field to find the priority of "
          "the pod. When Priority Admission Controller is enabled, it prevents users from setting "
          "this field. The admission controller populates this field from PriorityClassName."},
         {"priorityClassName", "string",
          "If specified, indicates the pod's priority. \"system-node-critical\" and "
          "\"system-cluster-critical\" are two special keywords which indicate the highest "
          "priorities with the former being the highest priority."},
         {"readinessGates", "[]object",
          "If specified, all readiness gates will be evaluated for pod readiness."},
         {"resourceClaims", "[]object",
          "ResourceClaims defines which ResourceClaims must be allocated and reserved before the "
          "Pod is allowed to start."},
         {"resources", "#ResourceRequirements",
          "Resources is the total amount of CPU and Memory resources required by all containers "
          "in the pod."},
         {"restartPolicy", "string",
          "Restart policy for all containers within the pod. One of Always, OnFailure, Never. "
          "Default to Always."},
         {"runtimeClassName", "string",
          "RuntimeClassName refers to a RuntimeClass object in the node.k8s.io group, which "
          "should be used to run this pod."},
         {"schedulerName", "string",
          "If specified, the pod will be dispatched by specified scheduler. If not specified, "
          "the pod will be dispatched by default scheduler."},
         {"schedulingGates", "[]object",
          "SchedulingGates is an opaque list of values that if specified will block scheduling "
          "the pod."},
         {"securityContext", "object",
          "SecurityContext holds pod-level security attributes and common container settings."},
         {"serviceAccount", "string",
          "DeprecatedServiceAccount is a deprecated alias for ServiceAccountName."},
         {"serviceAccountName", "string",
          "ServiceAccountName is the name of the ServiceAccount to use to run this pod."},
         {"setHostnameAsFQDN", "boolean",
          "If true the pod's hostname will be configured as the pod's FQDN."},
         {"shareProcessNamespace", "boolean",
          "Share a single process namespace between all of the containers in a pod."},
         {"subdomain", "string",
          "If specified, the fully qualified Pod hostname will be "
          "\"<hostname>.<subdomain>.<pod namespace>.svc.<cluster domain>\"."},
         {"terminationGracePeriodSeconds", "integer",
          "Optional duration in seconds the pod needs to terminate gracefully. Defaults to 30 "
          "seconds."},
         {"tolerations", "[]#Toleration", "If specified, the pod's tolerations."},
         {"topologySpreadConstraints", "[]object",
          "TopologySpreadConstraints describes how a group of pods ought to spread across "
          "topology domains."},
         {"volumes", "[]object",
          "List of volumes that can be mounted by containers belonging to the pod."}});
  b.add("Container", "A single application container that you want to run within a pod.",
        {{"args", "[]string",
          "Arguments to the entrypoint. The container image's CMD is used if this is not "
          "provided."},
         {"command", "[]string",
          "Entrypoint array. Not executed within a shell. The container image's ENTRYPOINT is "
          "used if this is not provided."},
         {"env", "[]#EnvVar", "List of environment variables to set in the container."},
         {"envFrom", "[]object",
          "List of sources to populate environment variables in the container."},
         {"image", "string", "Container image name."},
         {"imagePullPolicy", "string",
          "Image pull policy. One of Always, Never, IfNotPresent. Defaults to Always if :latest "
          "tag is specified, or IfNotPresent otherwise."},
         {"lifecycle", "object",
          "Actions that the management system should take in response to container lifecycle "
          "events."},
         {"livenessProbe", "object", "Periodic probe of container liveness."},
         {"name", "string",
          "Name of the container specified as a DNS_LABEL. Each container in a pod must have a "
          "unique name (DNS_LABEL). Cannot be updated."},
         {"ports", "[]object", "List of ports to expose from the container."},
         {"readinessProbe", "object", "Periodic probe of container service readiness."},
         {"resizePolicy", "[]object", "Resources resize policy for the container."},
         {"resources", "#ResourceRequirements",
          "Compute Resources required by this container. Cannot be updated."},
         {"restartPolicy", "string",
          "RestartPolicy defines the restart behavior of individual containers in a pod. This "
          "field may only be set for init containers, and the only allowed value is \"Always\"."},
         {"securityContext", "object",
          "SecurityContext defines the security options the container should be run with."},
         {"startupProbe", "object",
          "StartupProbe indicates that the Pod has successfully initialized."},
         {"stdin", "boolean",
          "Whether this container should allocate a buffer for stdin in the container runtime."},
         {"stdinOnce", "boolean",
          "Whether the container runtime should close the stdin channel after it has been opened "
          "by a single attach."},
         {"terminationMessagePath", "string",
          "Path at which the file to which the container's termination message will be written "
          "is mounted into the container's filesystem."},
         {"terminationMessagePolicy", "string",
          "Indicate how the termination message should be populated. File or "
          "FallbackToLogsOnError."},
         {"tty", "boolean", "Whether this container should allocate a TTY for itself."},
         {"volumeDevices", "[]object",
          "volumeDevices is the list of block devices to be used by the container."},
         {"volumeMounts", "[]object",
          "Pod volumes to mount into the container's filesystem. Cannot be updated."},
         {"workingDir", "string", "Container's working directory."}});
  b.add("EnvVar", "EnvVar represents an environment variable present in a Container.",
        {{"name", "string", "Name of the environment variable. Must be a C_IDENTIFIER."},
         {"value", "string",
          "Variable references $(VAR_NAME) are expanded using the previously defined "
          "environment variables in the container and any service environment variables."},
         {"valueFrom", "object",
          "Source for the environment variable's value. Cannot be used if value is not empty."}});
  b.add("ResourceRequirements", "ResourceRequirements describes the compute resource requirements.",
        {{"claims", "[]object",
          "Claims lists the names of resources, defined in spec.resourceClaims, that are used "
          "by this container."},
         {"limits", "quantities",
          "Limits describes the maximum amount of compute resources allowed."},
         {"requests", "quantities",
          "Requests describes the minimum amount of compute resources required. If Requests is "
          "omitted for a container, it defaults to Limits if that is explicitly specified."}});
  b.add("Toleration",
        "The pod this Toleration is attached to tolerates any taint that matches the triple "
        "<key,value,effect> using the matching operator <operator>.",
        {{"effect", "string",
          "Effect indicates the taint effect to match. Empty means match all taint effects. "
          "When specified, allowed values are NoSchedule, PreferNoSchedule and NoExecute."},
         {"key", "string",
          "Key is the taint key that the toleration applies to. Empty means match all taint "
          "keys."},
         {"operator", "string",
          "Operator represents a key's relationship to the value. Valid operators are Exists "
          "and Equal. Defaults to Equal."},
         {"tolerationSeconds", "integer",
          "TolerationSeconds represents the period of time the toleration (which must be of "
          "effect NoExecute) tolerates the taint."},
         {"value", "string", "Value is the taint value the toleration matches to."}});
  b.add("PodTemplateSpec",
        "PodTemplateSpec describes the data a pod should have when created from a template",
        {{"metadata", "#meta.ObjectMeta", "Standard object's metadata."},
         {"spec", "#PodSpec", "Specification of the desired behavior of the pod."}});

  // --- core/v1 Node, Namespace, Event
  auto node_fields = kind_fields("#NodeSpec", "Spec defines the behavior of a node.");
  node_fields.push_back(status_field());
  b.add("Node",
        "Node is a worker node in Kubernetes. Each node will have a unique identifier in the "
        "cache (i.e. in etcd).",
        node_fields, {"", "v1", "Node"});
  b.add("NodeSpec", "NodeSpec describes the attributes that a node is created with.",
        {{"configSource", "object",
          "Deprecated: Previously used to specify the source of the "
          "node's configuration."},
         {"externalID", "string", "Deprecated. Not all kubelets will set this field."},
         {"podCIDR", "string", "PodCIDR represents the pod IP range assigned to the node."},
         {"podCIDRs", "[]string",
          "podCIDRs represents the IP ranges assigned to the node for usage by Pods on that "
          "node."},
         {"providerID", "string",
          "ID of the node assigned by the cloud provider in the format: "
          "<ProviderName>://<ProviderSpecificNodeID>"},
         {"taints", "[]#Taint", "If specified, the node's taints."},
         {"unschedulable", "boolean",
          "Unschedulable controls node schedulability of new pods. By default, node is "
          "schedulable."}});
  b.add("Taint",
        "The node this Taint is attached to has the \"effect\" on any pod that does not "
        "tolerate the Taint.",
        {{"effect", "string",
          "Required. The effect of the taint on pods that do not tolerate the taint. Valid "
          "effects are NoSchedule, PreferNoSchedule and NoExecute."},
         {"key", "string", "Required. The taint key to be applied to a node."},
         {"timeAdded", "time", "TimeAdded represents the time at which the taint was added."},
         {"value", "string", "The taint value corresponding to the taint key."}});
  auto ns_fields = kind_fields("#NamespaceSpec", "Spec defines the behavior of the Namespace.");
  ns_fields.push_back(status_field());
  b.add("Namespace",
        "Namespace provides a scope for Names. Use of multiple namespaces is "
        "optional.",
        ns_fields, {"", "v1", "Namespace"});
  b.add("NamespaceSpec", "NamespaceSpec describes the attributes on a Namespace.",
        {{"finalizers", "[]string",
          "Finalizers is an opaque list of values that must be empty to permanently remove "
          "object from storage."}});
  auto event_fields = kind_fields("", "");
  for (Field f : std::vector<Field>{
           {"action", "string", "What action was taken/failed regarding to the Regarding object."},
           {"count", "integer", "The number of times this event has occurred."},
           {"eventTime", "time", "Time when this Event was first observed."},
           {"firstTimestamp", "time",
            "The time at which the event was first recorded. (Time of server receipt is in "
            "TypeMeta.)"},
           {"involvedObject", "object", "The object that this event is about."},
           {"lastTimestamp", "time",
            "The time at which the most recent occurrence of this event was recorded."},
           {"message", "string", "A human-readable description of the status of this operation."},
           {"reason", "string",
            "This should be a short, machine understandable string that gives the reason for "
            "the transition into the object's current status."},
           {"related", "object", "Optional secondary object for more complex actions."},
           {"reportingComponent", "string",
            "Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`."},
           {"reportingInstance", "string", "ID of the controller instance, e.g. `kubelet-xyzf`."},
           {"series", "object",
            "Data about the Event series this event represents or nil if it's a singleton "
            "Event."},
           {"source", "object",
            "The component reporting this event. Should be a short machine understandable "
            "string."},
           {"type", "string",
            "Type of this event (Normal, Warning), new types could be added in "
            "the future"}}) {
    event_fields.push_back(std::move(f));
  }
  b.add("Event", "Event is a report of an event somewhere in the cluster.", event_fields,
        {"", "v1", "Event"});

  // --- batch/v1 Job
  auto job_fields =
      kind_fields("#batch.JobSpec", "Specification of the desired behavior of a job.");
  job_fields.push_back(status_field());
  b.add("batch.Job", "Job represents the configuration of a single job.", job_fields,
        {"batch", "v1", "Job"});
  b.add("batch.JobSpec", "JobSpec describes how the job execution will look like.",
        {{"activeDeadlineSeconds", "integer",
          "Specifies the duration in seconds relative to the startTime that the job may be "
          "continuously active before the system tries to terminate it."},
         {"backoffLimit", "integer",
          "Specifies the number of retries before marking this job failed. Defaults to 6."},
         {"backoffLimitPerIndex", "integer",
          "Specifies the limit for the number of retries within an index before marking this "
          "index as failed. Only for Indexed Jobs."},
         {"completionMode", "string",
          "completionMode specifies how Pod completions are tracked. It can be `NonIndexed` "
          "(default) or `Indexed`. With Indexed, the Pods get an associated completion index "
          "from 0 to (.spec.completions - 1), available in the annotation "
          "batch.kubernetes.io/job-completion-index."},
         {"completions", "integer",
          "Specifies the desired number of successfully finished pods the job should be run "
          "with."},
         {"managedBy", "string", "ManagedBy field indicates the controller that manages a Job."},
         {"manualSelector", "boolean",
          "manualSelector controls generation of pod labels and pod selectors."},
         {"maxFailedIndexes", "integer",
          "Specifies the maximal number of failed indexes before marking the Job as failed."},
         {"parallelism", "integer",
          "Specifies the maximum desired number of pods the job should run at any given time."},
         {"podFailurePolicy", "object", "Specifies the policy of handling failed pods."},
         {"podReplacementPolicy", "string",
          "podReplacementPolicy specifies when to create replacement Pods. TerminatingOrFailed "
          "or Failed."},
         {"selector", "#meta.LabelSelector",
          "A label query over pods that should match the pod count."},
         {"successPolicy", "object",
          "successPolicy specifies the policy when the Job can be declared as succeeded."},
         {"suspend", "boolean",
          "suspend specifies whether the Job controller should create Pods or not."},
         {"template", "#PodTemplateSpec",
          "Describes the pod that will be created when executing a job."},
         {"ttlSecondsAfterFinished", "integer",
          "ttlSecondsAfterFinished limits the lifetime of a Job that has finished execution."}});

  // --- coordination.k8s.io/v1 Lease
  b.add("coordination.Lease", "Lease defines a lease concept.",
        kind_fields("#coordination.LeaseSpec", "spec contains the specification of the Lease."),
        {"coordination.k8s.io", "v1", "Lease"});
  b.add("coordination.LeaseSpec", "LeaseSpec is a specification of a Lease.",
        {{"acquireTime", "time", "acquireTime is a time when the current lease was acquired."},
         {"holderIdentity", "string",
          "holderIdentity contains the identity of the holder of a current lease."},
         {"leaseDurationSeconds", "integer",
          "leaseDurationSeconds is a duration that candidates for a lease need to wait to "
          "force acquire it. This is measured against the time of last observed renewTime."},
         {"leaseTransitions", "integer",
          "leaseTransitions is the number of transitions of a lease between holders."},
         {"preferredHolder", "string",
          "PreferredHolder signals to a lease holder that the lease has a more optimal "
          "holder and should be given up."},
         {"renewTime", "time",
          "renewTime is a time when the current holder of a lease has last updated the lease."},
         {"strategy", "string",
          "Strategy indicates the strategy for picking the leader for coordinated leader "
          "election."}});

  // --- policy/v1 PodDisruptionBudget
  auto pdb_fields = kind_fields("#policy.PodDisruptionBudgetSpec",
                                "Specification of the desired behavior of the "
                                "PodDisruptionBudget.");
  pdb_fields.push_back(status_field());
  b.add("policy.PodDisruptionBudget",
        "PodDisruptionBudget is an object to define the max disruption that can be caused to a "
        "collection of pods",
        pdb_fields, {"policy", "v1", "PodDisruptionBudget"});
  b.add("policy.PodDisruptionBudgetSpec",
        "PodDisruptionBudgetSpec is a description of a PodDisruptionBudget.",
        {{"maxUnavailable", "int-or-string",
          "An eviction is allowed if at most \"maxUnavailable\" pods selected by \"selector\" "
          "are unavailable after the eviction. Mutually exclusive with minAvailable."},
         {"minAvailable", "int-or-string",
          "An eviction is allowed if at least \"minAvailable\" pods selected by \"selector\" "
          "will still be available after the eviction."},
         {"selector", "#meta.LabelSelector",
          "Label query over pods whose evictions are managed by the disruption budget."},
         {"unhealthyPodEvictionPolicy", "string",
          "UnhealthyPodEvictionPolicy defines the criteria for when unhealthy pods should be "
          "considered for eviction. IfHealthyBudget or AlwaysAllow."}});

  // --- scheduling.k8s.io/v1 PriorityClass (no spec: its fields are top-level)
  auto pc_fields = kind_fields("", "");
  for (Field f : std::vector<Field>{
           {"description", "string",
            "description is an arbitrary string that usually provides guidelines on when this "
            "priority class should be used."},
           {"globalDefault", "boolean",
            "globalDefault specifies whether this PriorityClass should be considered as the "
            "default priority for pods that do not have any priority class. Only one "
            "PriorityClass can be marked as `globalDefault`."},
           {"preemptionPolicy", "string",
            "preemptionPolicy is the Policy for preempting pods with lower priority. One of "
            "Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset."},
           {"value", "integer",
            "value represents the integer value of this priority class. This is the actual "
            "priority that pods receive when they have the name of this class in their pod "
            "spec."}}) {
    pc_fields.push_back(std::move(f));
  }
  b.add("scheduling.PriorityClass",
        "PriorityClass defines mapping from a priority class name to the priority integer "
        "value.",
        pc_fields, {"scheduling.k8s.io", "v1", "PriorityClass"});
  return b.schemas;
}

}  // namespace

const nlohmann::json& openapi_component_schemas() {
  static const nlohmann::json kSchemas = build();  // immutable, built once
  return kSchemas;
}

std::string schema_name_of(const std::string& group, const std::string& version,
                           const std::string& kind) {
  for (const auto& [name, schema] : openapi_component_schemas().items()) {
    for (const auto& gvk :
         schema.value("x-kubernetes-group-version-kind", nlohmann::json::array())) {
      if (gvk.value("group", "") == group && gvk.value("version", "") == version &&
          gvk.value("kind", "") == kind)
        return name;
    }
  }
  return "";
}

}  // namespace fitscale::vcluster
