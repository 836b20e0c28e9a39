// C2SP signed-note (https://c2sp.org/signed-note) with Ed25519 keys, and the C2SP tlog-checkpoint body
// (https://c2sp.org/tlog-checkpoint). Keys are in the note form golang.org/x/mod/sumdb/note reads:
// `PRIVATE+KEY+<name>+<key hash>+<base64(0x01 || seed)>` and `<name>+<key hash>+<base64(0x01 || public key)>`.
// Pure: node:crypto only, shared by the server and the offline verifier.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from "node:crypto";

const ED25519 = 0x01;
const EM_DASH = "\u2014";
/** PKCS #8 DER of an Ed25519 private key, up to its 32-byte seed (RFC 8410). */
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
/** SPKI DER of an Ed25519 public key, up to its 32 bytes. */
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export type Signer = { name: string; keyId: Buffer; privateKey: KeyObject; publicKey: Buffer };
export type Verifier = { name: string; keyId: Buffer; publicKey: KeyObject };

/** A key name (a log's origin): printable, no spaces and no `+`. */
const validName = (name: string) => /^[\x21-\x2a\x2c-\x7e]+$/.test(name);

/** The key hash: the first 4 bytes of SHA-256(name || "\n" || 0x01 || public key). */
function keyIdOf(name: string, publicKey: Buffer): Buffer {
  return createHash("sha256")
    .update(`${name}\n`)
    .update(Buffer.from([ED25519]))
    .update(publicKey)
    .digest()
    .subarray(0, 4);
}

function decodeKeyBytes(text: string, length: number, what: string): Buffer {
  const bytes = Buffer.from(text, "base64");
  if (bytes.toString("base64") !== text || bytes.length !== length + 1 || bytes[0] !== ED25519) {
    throw new Error(`${what}: not an Ed25519 key in note form`);
  }
  return bytes.subarray(1);
}

function checkedKeyId(name: string, hashHex: string, publicKey: Buffer, what: string): Buffer {
  if (!validName(name)) throw new Error(`${what}: the name must be printable, without spaces or "+"`);
  const keyId = keyIdOf(name, publicKey);
  if (keyId.toString("hex") !== hashHex) throw new Error(`${what}: the key hash does not match the key`);
  return keyId;
}

const rawPublicKey = (key: KeyObject): Buffer => key.export({ format: "der", type: "spki" }).subarray(SPKI_PREFIX.length);

/** `a+b+rest`: the key's base64 may itself hold a "+". */
function splitKey(text: string, fields: number): string[] {
  const parts = text.trim().split("+");
  return parts.length < fields ? parts : [...parts.slice(0, fields - 1), parts.slice(fields - 1).join("+")];
}

export function parseSignerKey(text: string): Signer {
  const parts = splitKey(text, 5);
  if (parts.length !== 5 || parts[0] !== "PRIVATE" || parts[1] !== "KEY") {
    throw new Error("must be PRIVATE+KEY+<name>+<key hash>+<key>, as npm run audit:keygen prints it");
  }
  const [, , name, hashHex, encoded] = parts as [string, string, string, string, string];
  const seed = decodeKeyBytes(encoded, 32, "the signing key");
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
  const publicKey = rawPublicKey(createPublicKey(privateKey));
  return { name, keyId: checkedKeyId(name, hashHex, publicKey, "the signing key"), privateKey, publicKey };
}

export function parseVerifierKey(text: string): Verifier {
  const parts = splitKey(text, 3);
  if (parts.length !== 3) throw new Error("a verifier key is <name>+<key hash>+<key>");
  const [name, hashHex, encoded] = parts as [string, string, string];
  const raw = decodeKeyBytes(encoded, 32, "the verifier key");
  const publicKey = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: "der", type: "spki" });
  return { name, keyId: checkedKeyId(name, hashHex, raw, "the verifier key"), publicKey };
}

/** The verifier key of a signer, in note form: what /.well-known/audit-log-key serves. */
export const verifierKeyText = (signer: Signer): string =>
  `${signer.name}+${signer.keyId.toString("hex")}+${Buffer.concat([Buffer.from([ED25519]), signer.publicKey]).toString("base64")}`;

/** A fresh key pair for `name` (npm run audit:keygen): the signer's text and the verifier's. */
export function generateSignerKey(name: string): { signer: string; verifier: string } {
  if (!validName(name)) throw new Error(`origin "${name}": printable, without spaces or "+"`);
  const { privateKey } = generateKeyPairSync("ed25519");
  const seed = privateKey.export({ format: "der", type: "pkcs8" }).subarray(PKCS8_PREFIX.length);
  const publicKey = rawPublicKey(createPublicKey(privateKey));
  const keyId = keyIdOf(name, publicKey).toString("hex");
  const signer = `PRIVATE+KEY+${name}+${keyId}+${Buffer.concat([Buffer.from([ED25519]), seed]).toString("base64")}`;
  return { signer, verifier: verifierKeyText(parseSignerKey(signer)) };
}

/** The note: its text (ending in a newline), an empty line, then the signature line. */
export function signNote(text: string, signer: Signer): string {
  if (!text.endsWith("\n") || text.includes("\n\n")) throw new Error("a note's text ends with one newline and has no empty line");
  const signature = sign(null, Buffer.from(text, "utf8"), signer.privateKey);
  return `${text}\n${EM_DASH} ${signer.name} ${Buffer.concat([signer.keyId, signature]).toString("base64")}\n`;
}

/** The text of a note that `verifier` signed; throws, saying why, when it did not. */
export function openNote(note: string, verifier: Verifier): string {
  const cut = note.lastIndexOf("\n\n");
  if (cut < 0 || !note.endsWith("\n")) throw new Error("not a signed note (no signature block)");
  const text = note.slice(0, cut + 1);
  const lines = note.slice(cut + 2, -1).split("\n");
  for (const line of lines) {
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/.exec(line);
    if (!match) throw new Error(`malformed signature line: ${line}`);
    const blob = Buffer.from(match[2]!, "base64");
    if (match[1] !== verifier.name || blob.length !== 68 || !blob.subarray(0, 4).equals(verifier.keyId)) continue;
    if (verify(null, Buffer.from(text, "utf8"), verifier.publicKey, blob.subarray(4))) return text;
    throw new Error(`the signature of ${verifier.name} does not verify`);
  }
  throw new Error(`no signature by ${verifier.name}+${verifier.keyId.toString("hex")}`);
}

export type Checkpoint = { origin: string; size: number; root: Buffer };

export const checkpointText = (c: Checkpoint): string => `${c.origin}\n${c.size}\n${c.root.toString("base64")}\n`;

/** The first three lines of a checkpoint's text (further lines are extensions, ignored). */
export function parseCheckpoint(text: string): Checkpoint {
  const [origin, size, root] = text.split("\n");
  const hash = Buffer.from(root ?? "", "base64");
  if (!origin || !/^(0|[1-9][0-9]{0,15})$/.test(size ?? "") || hash.length !== 32 || hash.toString("base64") !== root) {
    throw new Error("not a checkpoint (origin, tree size, base64 root hash)");
  }
  return { origin, size: Number(size), root: hash };
}

/** A signed checkpoint's content, once its signature and origin are checked. */
export function openCheckpoint(note: string, verifier: Verifier): Checkpoint {
  const checkpoint = parseCheckpoint(openNote(note, verifier));
  if (checkpoint.origin !== verifier.name) throw new Error(`the origin ${checkpoint.origin} is not the key's ${verifier.name}`);
  return checkpoint;
}
