// The flags of `tkafka acls`: kafka-acls.sh's (org.apache.kafka.tools.AclCommand$AclCommandOptions,
// Kafka 4.4), with their help texts, plus tkafka's --output and --debug.
import type { JoptOptionSpec, JoptToolSpec, JoptValueType } from '../common/jopt.js';
import { ACL_OPERATIONS } from '../../protocol/acl.js';
import { BOOTSTRAP_HELP_SUFFIX, DEBUG_OPTION } from '../topics/spec.js';

/** SecurityUtils.toPascalCase: `ALTER_CONFIGS` → `AlterConfigs`. */
export function pascalCase(name: string): string {
  return name
    .split('_')
    .map((w) => (w.length > 0 ? w[0]!.toUpperCase() + w.slice(1).toLowerCase() : ''))
    .join('');
}

/**
 * AclEntry.ACL_OPERATIONS: every operation but UNKNOWN and ANY. Kafka prints them from a HashSet of
 * enum constants, whose order changes from one JVM run to the next; tkafka keeps the enum's order.
 */
export const LISTED_OPERATIONS = ACL_OPERATIONS.filter((o) => o !== 'UNKNOWN' && o !== 'ANY');

/** PatternTypeConverter.valuePattern: the PatternType constants but UNKNOWN. */
export const PATTERN_TYPE_PATTERN = 'ANY|MATCH|LITERAL|PREFIXED';

const BOOTSTRAP_DOC =
  'A list of host/port pairs to use for establishing the connection to the Kafka cluster. This list should be in the form host1:port1,host2:port2,... This config is required for acl management using admin client API.';

export const ACLS_SPEC: JoptToolSpec = {
  name: 'acls',
  kafkaScript: 'kafka-acls.sh',
  description: 'This tool helps to manage acls on kafka.',
  options: [
    {
      names: ['bootstrap-server'],
      description: BOOTSTRAP_DOC + BOOTSTRAP_HELP_SUFFIX,
      arg: { name: 'server to connect to' },
      complete: 'host:port',
    },
    {
      names: ['bootstrap-controller'],
      description: BOOTSTRAP_DOC,
      arg: { name: 'controller to connect to' },
      complete: 'host:port',
    },
    {
      names: ['command-config'],
      description: 'A property file containing configs to be passed to Admin Client.',
      arg: { name: 'command-config', optional: true },
      complete: 'file',
    },
    {
      names: ['topic'],
      description:
        "topic to which ACLs should be added or removed. A value of '*' indicates ACL should apply to all topics.",
      arg: { name: 'topic' },
    },
    { names: ['cluster'], description: 'Add/Remove cluster ACLs.' },
    {
      names: ['group'],
      description:
        "Consumer Group to which the ACLs should be added or removed. A value of '*' indicates the ACLs should apply to all groups.",
      arg: { name: 'group' },
    },
    {
      names: ['transactional-id'],
      description:
        "The transactionalId to which ACLs should be added or removed. A value of '*' indicates the ACLs should apply to all transactionalIds.",
      arg: { name: 'transactional-id' },
    },
    {
      names: ['idempotent'],
      description:
        'Enable idempotence for the producer. This should be used in combination with the --producer option. Note that idempotence is enabled automatically if the producer is authorized to a particular transactional-id.',
    },
    {
      names: ['delegation-token'],
      description:
        "Delegation token to which ACLs should be added or removed. A value of '*' indicates ACL should apply to all tokens.",
      arg: { name: 'delegation-token' },
    },
    {
      names: ['resource-pattern-type'],
      description:
        "The type of the resource pattern or pattern filter. When adding acls, this should be a specific pattern type, e.g. 'literal' or 'prefixed'. When listing or removing acls, a specific pattern type can be used to list or remove acls from specific resource patterns, or use the filter values of 'any' or 'match', where 'any' will match any pattern type, but will match the resource name exactly, where as 'match' will perform pattern matching to list or remove all acls that affect the supplied resource(s). WARNING: 'match', when used in combination with the '--remove' switch, should be used with care.",
      // jopt shows the converter's value pattern as the argument's type.
      arg: { type: PATTERN_TYPE_PATTERN as JoptValueType, defaults: ['LITERAL'] },
      complete: ['LITERAL', 'PREFIXED', 'ANY', 'MATCH'],
    },
    { names: ['add'], description: 'Indicates you are trying to add ACLs.' },
    { names: ['remove'], description: 'Indicates you are trying to remove ACLs.' },
    {
      names: ['list'],
      description:
        'List ACLs for the specified resource, use --topic <topic> or --group <group> or --cluster to specify a resource.',
    },
    {
      names: ['operation'],
      description:
        'Operation that is being allowed or denied. Valid operation names are: \n' +
        LISTED_OPERATIONS.map((o) => '\t' + pascalCase(o)).join('\n') +
        '\n',
      arg: { defaults: ['All'] },
      complete: LISTED_OPERATIONS.map(pascalCase),
    },
    {
      names: ['allow-principal'],
      description:
        "principal is in principalType:name format. Note that principalType must be supported by the Authorizer being used. For example, User:'*' is the wild card indicating all users.",
      arg: { name: 'allow-principal' },
    },
    {
      names: ['deny-principal'],
      description:
        "principal is in principalType:name format. By default anyone not added through --allow-principal is denied access. You only need to use this option as negation to already allowed set. Note that principalType must be supported by the Authorizer being used. For example if you wanted to allow access to all users in the system but not test-user you can define an ACL that allows access to User:'*' and specify --deny-principal=User:test@EXAMPLE.COM. AND PLEASE REMEMBER DENY RULES TAKES PRECEDENCE OVER ALLOW RULES.",
      arg: { name: 'deny-principal' },
    },
    {
      names: ['principal'],
      description:
        'List ACLs for the specified principal. principal is in principalType:name format. Note that principalType must be supported by the Authorizer being used. Multiple --principal option can be passed.',
      arg: { name: 'principal', optional: true },
    },
    {
      names: ['allow-host'],
      description:
        "Host from which principals listed in --allow-principal will have access. If you have specified --allow-principal then the default for this option will be set to '*' which allows access from all hosts.",
      arg: { name: 'allow-host' },
    },
    {
      names: ['deny-host'],
      description:
        "Host from which principals listed in --deny-principal will be denied access. If you have specified --deny-principal then the default for this option will be set to '*' which denies access from all hosts.",
      arg: { name: 'deny-host' },
    },
    {
      names: ['producer'],
      description:
        'Convenience option to add/remove ACLs for producer role. This will generate ACLs that allows WRITE,DESCRIBE and CREATE on topic.',
    },
    {
      names: ['consumer'],
      description:
        'Convenience option to add/remove ACLs for consumer role. This will generate ACLs that allows READ,DESCRIBE on topic and READ on group.',
    },
    { names: ['force'], description: 'Assume Yes to all queries and do not prompt.' },
    {
      names: ['user-principal'],
      description:
        'Specifies a user principal as a resource in relation with the operation. For instance one could grant CreateTokens or DescribeTokens permission on a given user principal.',
      arg: { name: 'user-principal' },
    },
    {
      names: ['output'],
      extension: true,
      arg: { name: 'text|json|table' },
      complete: ['text', 'json', 'table'],
      description:
        'tkafka: Output format: text (the default: the same lines as the Kafka tool), json (the ACL bindings listed, added or removed, as one JSON array) or table.',
    },
    DEBUG_OPTION,
  ] satisfies JoptOptionSpec[],
};

/** ACLS_SPEC for parsing: --resource-pattern-type read as a String (converted by the tool, as Kafka's converter does). */
export const ACLS_PARSING_SPEC: JoptToolSpec = {
  ...ACLS_SPEC,
  options: ACLS_SPEC.options.map((o) =>
    o.names[0] === 'resource-pattern-type' ? { ...o, arg: { ...o.arg, type: 'String' as const } } : o,
  ),
};
