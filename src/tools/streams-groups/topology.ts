// kafka-streams-groups.sh --describe --topology (Kafka 4.4's TopologyDescriptionFormatter): the
// topology description a streams group's broker keeps (KIP-1331), printed as Kafka Streams'
// TopologyDescription.toString() prints a topology. Predecessors are rebuilt from the successors
// (the wire carries only those), within a subtopology or a global store.
import type { StreamsTopologyDescription, StreamsTopologyNode } from '../../client/admin/streams-groups.js';

const SOURCE = 1;
const PROCESSOR = 2;
const SINK = 3;

/** Java's TreeSet<String>.toString(): `[a, b]`, sorted by UTF-16 code units. */
const treeSet = (xs: readonly string[]): string => `[${sortedNames(xs).join(', ')}]`;
const sortedNames = (xs: readonly string[]): string[] => [...new Set(xs)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
/** nodeNames: `none`, or the sorted names joined by `, `. */
const nodeNames = (xs: readonly string[]): string => (xs.length === 0 ? 'none' : sortedNames(xs).join(', '));

function node(n: StreamsTopologyNode, all: readonly StreamsTopologyNode[]): string {
  const predecessors = all.filter((m) => m.successors.includes(n.name)).map((m) => m.name);
  switch (n.nodeType) {
    case SOURCE:
      return `Source: ${n.name} (topics: ${treeSet(n.sourceTopics)})\n      --> ${nodeNames(n.successors)}`;
    case PROCESSOR:
      return (
        `Processor: ${n.name} (stores: ${treeSet(n.stores)})\n      --> ${nodeNames(n.successors)}` +
        `\n      <-- ${nodeNames(predecessors)}`
      );
    case SINK:
      return `Sink: ${n.name} (topic: ${n.sinkTopic ?? 'null'})\n      <-- ${nodeNames(predecessors)}`;
    default:
      throw new Error(`Unknown node type ${n.nodeType} of node ${n.name}`);
  }
}

/** TopologyDescriptionFormatter.format. */
export function formatTopology(t: StreamsTopologyDescription): string {
  let out = 'Topologies:\n';
  for (const s of t.subtopologies) {
    out += `   Sub-topology: ${s.subtopologyId}\n`;
    for (const n of s.nodes) out += `    ${node(n, s.nodes)}\n`;
    out += '\n';
  }
  let id = t.subtopologies.length;
  for (const g of t.globalStores) {
    const nodes = [g.source, g.processor];
    out += `   Sub-topology: ${id++} for global store (will not generate tasks)\n`;
    out += `    ${node(g.source, nodes)}\n`;
    out += `    ${node(g.processor, nodes)}\n`;
    out += '\n';
  }
  return out;
}

/** StreamsGroupTopologyDescriptionStatus names by wire value. */
export const TOPOLOGY_STATUS = ['NOT_REQUESTED', 'NOT_STORED', 'ERROR', 'AVAILABLE'];
