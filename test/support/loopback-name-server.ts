/**
 * A DNS server on a loopback UDP port for tests of name resolution: each name answers as its record
 * says (addresses, NXDOMAIN) or never (`silent`), and every question asked is kept.
 */
import { createSocket, type Socket } from 'node:dgram';
import { type AddressInfo } from 'node:net';
import dnsPacket from 'dns-packet';

export type NameRecord =
  { readonly a?: readonly string[]; readonly aaaa?: readonly string[] } | 'silent' | 'nxdomain';

export interface LoopbackNameServer {
  /** `127.0.0.1:<port>`, for `Resolver.setServers`. */
  readonly address: string;
  /** Questions received, `<type> <name>`. */
  readonly questions: string[];
  /** From now on, questions of `type` (A, AAAA) get no answer. */
  dropQuestionsOfType(type: string): void;
  close(): Promise<void>;
}

export async function startLoopbackNameServer(
  records: Readonly<Record<string, NameRecord>>,
): Promise<LoopbackNameServer> {
  const socket: Socket = createSocket('udp4');
  const questions: string[] = [];
  const dropped = new Set<string>();
  socket.on('message', (message, peer) => {
    const query = dnsPacket.decode(message);
    const question = query.questions?.[0];
    if (!question) return;
    questions.push(`${question.type} ${question.name}`);
    const record = records[question.name.toLowerCase()];
    if (record === 'silent' || dropped.has(question.type)) return;
    const data =
      record === undefined || record === 'nxdomain'
        ? []
        : question.type === 'A'
          ? (record.a ?? [])
          : question.type === 'AAAA'
            ? (record.aaaa ?? [])
            : [];
    const answer = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags:
        dnsPacket.RECURSION_DESIRED |
        dnsPacket.RECURSION_AVAILABLE |
        (record === 'nxdomain' || record === undefined ? 3 : 0),
      questions: [question],
      answers: data.map((address) => ({
        type: question.type as 'A' | 'AAAA',
        name: question.name,
        ttl: 60,
        data: address,
      })),
    });
    socket.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    questions,
    dropQuestionsOfType: (type) => dropped.add(type),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
