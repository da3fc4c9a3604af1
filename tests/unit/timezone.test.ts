import { describe, expect, it } from "vitest";
import { isTimezone, timezones } from "@/lib/timezone";

describe("timezones", () => {
  it("accepts IANA names exactly, and UTC", () => {
    for (const zone of ["UTC", "Europe/Paris", "Pacific/Auckland", "America/Los_Angeles"]) {
      expect(isTimezone(zone), zone).toBe(true);
    }
    for (const zone of ["", "Mars/Olympus", "europe/paris", "GMT+1; drop table", "Europe/Paris\\u0000"]) {
      expect(isTimezone(zone), zone).toBe(false);
    }
  });

  it("offers every zone the runtime knows, UTC among them", () => {
    const zones = timezones();
    expect(zones).toContain("UTC");
    expect(zones).toContain("Pacific/Auckland");
    expect(zones.length).toBeGreaterThan(300);
    for (const zone of zones) expect(isTimezone(zone), zone).toBe(true);
  });
});
