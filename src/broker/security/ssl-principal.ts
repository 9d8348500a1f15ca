// The principal of a connection authenticated by a TLS client certificate: Kafka's
// DefaultKafkaPrincipalBuilder takes the peer certificate's subject in RFC 2253 form and maps it
// through ssl.principal.mapping.rules (SslPrincipalMapper: DEFAULT keeps the DN; RULE:pattern/
// replacement/[LU] rewrites a DN the pattern matches whole). No certificate: User:ANONYMOUS.
import type { TLSSocket } from 'node:tls';

export const ANONYMOUS_PRINCIPAL = 'User:ANONYMOUS';

const RULE_PATTERN = String.raw`(DEFAULT)|RULE:((\\.|[^\\/])*)/((\\.|[^\\/])*)/([LU]?).*?|(.*?)`;
const RULE_SPLITTER = new RegExp(String.raw`\s*(` + RULE_PATTERN + String.raw`)\s*(,\s*|$)`, 'g');
const RULE_PARSER = new RegExp('^(?:' + RULE_PATTERN + ')');

interface Rule {
  readonly isDefault: boolean;
  readonly pattern?: RegExp;
  readonly replacement?: string;
  readonly lower?: boolean;
  readonly upper?: boolean;
}

export class SslPrincipalMapper {
  private readonly rules: Rule[];

  /** Parses ssl.principal.mapping.rules; throws Kafka's "Invalid rule" messages. */
  constructor(rules = 'DEFAULT') {
    const parts: string[] = [];
    const text = rules.trim();
    RULE_SPLITTER.lastIndex = 0;
    for (let m = RULE_SPLITTER.exec(text); m !== null; m = RULE_SPLITTER.exec(text)) {
      parts.push(m[1]!);
      if (m.index + m[0].length >= text.length) break;
      if (m[0].length === 0) RULE_SPLITTER.lastIndex++;
    }
    this.rules = [];
    for (const rule of parts) {
      const m = RULE_PARSER.exec(rule);
      if (!m) throw new Error(`Invalid rule: ${rule}`);
      if (m[0].length !== rule.length)
        throw new Error(`Invalid rule: \`${rule}\`, unmatched substring: \`${rule.slice(m[0].length)}\``);
      if (m[1] !== undefined) this.rules.push({ isDefault: true });
      else if (m[2] !== undefined)
        this.rules.push({
          isDefault: false,
          pattern: new RegExp(m[2]),
          replacement: m[4] ?? '',
          lower: m[6] === 'L',
          upper: m[6] === 'U',
        });
    }
  }

  /** The short name for a DN, as SslPrincipalMapper.getName (throws when no rule applies). */
  getName(dn: string): string {
    for (const r of this.rules) {
      if (r.isDefault) return dn;
      const whole = new RegExp(`^(?:${r.pattern!.source})$`);
      if (!whole.test(dn)) continue;
      let result = dn.replace(new RegExp(r.pattern!.source, 'g'), r.replacement!);
      if (r.lower) result = result.toLowerCase();
      else if (r.upper) result = result.toUpperCase();
      return result;
    }
    throw new Error(`No rules apply to ${dn}, rules ${this.rules.length}`);
  }
}

/**
 * Node prints a subject one attribute per line, most significant first ("C=US\nO=x\nCN=y");
 * RFC 2253 lists the RDNs last first, comma separated ("CN=y,O=x,C=US").
 */
export function rfc2253(subject: string): string {
  return subject
    .split('\n')
    .filter((s) => s !== '')
    .reverse()
    .join(',');
}

/** `User:<mapped DN>` for a verified client certificate, else User:ANONYMOUS. */
export function tlsPrincipal(socket: TLSSocket, mapper: SslPrincipalMapper): string {
  if (!socket.authorized) return ANONYMOUS_PRINCIPAL;
  const cert = socket.getPeerX509Certificate();
  if (!cert) return ANONYMOUS_PRINCIPAL;
  return `User:${mapper.getName(rfc2253(cert.subject))}`;
}
