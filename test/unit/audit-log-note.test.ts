// Signed notes and checkpoints (server/audit/log/note.ts) against the reference example of
// golang.org/x/mod/sumdb/note: Ed25519 is deterministic, so the same key and text give the same bytes.
import { describe, expect, it } from "vitest";
import { EMPTY_ROOT } from "../../server/audit/log/merkle.js";
import {
  checkpointText,
  generateSignerKey,
  openCheckpoint,
  openNote,
  parseSignerKey,
  parseVerifierKey,
  signNote,
  verifierKeyText,
} from "../../server/audit/log/note.js";

const SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const NOTE = `${TEXT}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

describe("the reference example", () => {
  it("signs byte for byte as the Go implementation, and its verifier key is the published one", () => {
    const signer = parseSignerKey(SKEY);
    expect(signNote(TEXT, signer)).toBe(NOTE);
    expect(verifierKeyText(signer)).toBe(VKEY);
    expect(openNote(NOTE, parseVerifierKey(VKEY))).toBe(TEXT);
  });

  it("refuses a changed text, another key, or a key whose hash does not match", () => {
    const verifier = parseVerifierKey(VKEY);
    expect(() => openNote(NOTE.replace("problem,", "problem;"), verifier)).toThrow(/does not verify/);
    const other = parseVerifierKey(generateSignerKey("PeterNeumann").verifier);
    expect(() => openNote(NOTE, other)).toThrow(/no signature by PeterNeumann/);
    expect(() => parseVerifierKey(VKEY.replace("c74f20a3", "c74f20a4"))).toThrow(/key hash/);
    expect(() => parseSignerKey("AYEKFALVFGyNhPJEMzD1QIDr")).toThrow(/PRIVATE\+KEY/);
  });
});

describe("checkpoints", () => {
  it("a generated key signs a checkpoint that opens with its verifier key, and with no other origin", () => {
    const keys = generateSignerKey("audit.example.com/log");
    const note = signNote(checkpointText({ origin: "audit.example.com/log", size: 3, root: EMPTY_ROOT }), parseSignerKey(keys.signer));
    expect(note.split("\n").slice(0, 3)).toEqual(["audit.example.com/log", "3", EMPTY_ROOT.toString("base64")]);
    expect(openCheckpoint(note, parseVerifierKey(keys.verifier))).toEqual({ origin: "audit.example.com/log", size: 3, root: EMPTY_ROOT });
    const impostor = parseSignerKey(generateSignerKey("audit.example.com/log").signer);
    const forged = signNote(checkpointText({ origin: "audit.example.com/log", size: 3, root: EMPTY_ROOT }), impostor);
    expect(() => openCheckpoint(forged, parseVerifierKey(keys.verifier))).toThrow(/no signature/);
  });
});
