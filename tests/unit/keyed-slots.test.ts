import { describe, expect, it } from "vitest";
import { createKeyedSlots } from "@/lib/keyed-slots";

describe("keyed slots", () => {
  it("lets `limit` holders of one key in, queues the next, and hands a freed slot to it", async () => {
    const slots = createKeyedSlots(2, 1_000);
    const a = await slots.acquire("k");
    const b = await slots.acquire("k");
    expect(a).toBeTypeOf("function");
    expect(b).toBeTypeOf("function");
    let third: (() => void) | null | undefined;
    const waiting = slots.acquire("k").then((r) => {
      third = r;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(third).toBeUndefined();
    a?.();
    await waiting;
    expect(third).toBeTypeOf("function");
    b?.();
    third?.();
    expect(slots.size()).toBe(0);
  });

  it("other keys are never held up by a full key", async () => {
    const slots = createKeyedSlots(1, 5_000);
    const held = await slots.acquire("busy");
    const other = await slots.acquire("other");
    expect(other).toBeTypeOf("function");
    other?.();
    held?.();
  });

  it("gives up after the wait bound, and a late release does not double-free", async () => {
    const slots = createKeyedSlots(1, 50);
    const held = await slots.acquire("k");
    const started = Date.now();
    expect(await slots.acquire("k")).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    held?.();
    held?.();
    expect(slots.size()).toBe(0);
    const again = await slots.acquire("k");
    expect(again).toBeTypeOf("function");
    again?.();
  });
});
