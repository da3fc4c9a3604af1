"use client";

import { startTransition, useActionState, useId, useState } from "react";
import { runToolAction } from "@/app/dashboard/tools/actions";
import { IDLE } from "@/lib/action-state";
import type { FormField } from "@/lib/mcp/tool-form";
import { ToolAnswer } from "./tool-answer";
import { Button } from "./ui/button";
import { FormMessage } from "./ui/form-message";

const INPUT =
  "mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-slate-500 focus:outline-none focus:ring-2 focus:ring-slate-300";

const labelOf = (name: string) => name.charAt(0).toUpperCase() + name.slice(1).replaceAll("_", " ");

function Field({ field, id }: { field: FormField; id: string }) {
  const help = field.description ? (
    <p id={`${id}-help`} className="mt-1 text-xs text-slate-600">
      {field.description}
    </p>
  ) : null;
  const describedBy = field.description ? `${id}-help` : undefined;

  if (field.kind === "choices") {
    return (
      <fieldset aria-describedby={describedBy}>
        <legend className="text-sm font-medium text-slate-800">{labelOf(field.name)}</legend>
        <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
          {field.options.map((option) => (
            <label key={option} className="flex items-center gap-1.5 text-sm text-slate-700">
              <input type="checkbox" name={`${field.name}.${option}`} className="size-4" />
              {option.replaceAll("_", " ")}
            </label>
          ))}
        </div>
        {help}
      </fieldset>
    );
  }
  if (field.kind === "boolean") {
    return (
      <div>
        <label className="flex items-center gap-2 text-sm font-medium text-slate-800">
          <input
            type="checkbox"
            name={field.name}
            defaultChecked={field.default}
            aria-describedby={describedBy}
            className="size-4"
          />
          {labelOf(field.name)}
        </label>
        {help}
      </div>
    );
  }
  const label = (
    <label htmlFor={id} className="block text-sm font-medium text-slate-800">
      {labelOf(field.name)}
    </label>
  );
  if (field.kind === "select") {
    return (
      <div>
        {label}
        <select
          id={id}
          name={field.name}
          defaultValue={field.default ?? ""}
          aria-describedby={describedBy}
          className={INPUT}
        >
          {field.default === undefined ? <option value="">(not given: the tool's default)</option> : null}
          {field.options.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
        {help}
      </div>
    );
  }
  return (
    <div>
      {label}
      <input
        id={id}
        name={field.name}
        aria-describedby={describedBy}
        className={INPUT}
        {...(field.kind === "number"
          ? {
              type: "number",
              step: field.integer ? 1 : "any",
              min: field.min,
              max: field.max,
              defaultValue: field.default,
            }
          : field.kind === "date"
            ? { type: "date" }
            : field.kind === "list"
              ? { type: "text", placeholder: "Ids separated by commas" }
              : { type: "text", maxLength: field.maxLength })}
      />
      {help}
    </div>
  );
}

/** A key or an app the tools page can run as (app/dashboard/tools/actions.ts reads `value`). */
export interface RunAsOption {
  value: string;
  label: string;
  group: "API keys" | "Connected apps";
}

const YOU = "You (all visible accounts)";

/** "Run as": the person themself, or one of their live keys or connected apps, by name. */
function RunAsSelect({ id, options }: { id: string; options: RunAsOption[] }) {
  const groups = (["API keys", "Connected apps"] as const)
    .map((group) => ({ group, options: options.filter((o) => o.group === group) }))
    .filter((g) => g.options.length > 0);
  return (
    <div className="sm:max-w-sm">
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        Run as
      </label>
      <select id={id} name="run_as" defaultValue="you" aria-describedby={`${id}-help`} className={INPUT}>
        <option value="you">{YOU}</option>
        {groups.map((g) => (
          <optgroup key={g.group} label={g.group}>
            {g.options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
      <p id={`${id}-help`} className="mt-1 text-xs text-slate-600">
        A key or app answers with only the accounts it may read.
      </p>
    </div>
  );
}

/** The form of one tool, generated from its input schema, and the answer of the last run. */
export function ToolRunner({
  tool,
  fields,
  runAs,
}: {
  tool: string;
  fields: FormField[];
  runAs: RunAsOption[];
}) {
  const [state, action, pending] = useActionState(runToolAction, IDLE);
  const [ranAs, setRanAs] = useState(YOU);
  const id = useId();
  // Submitted by hand, not through `<form action>`: React resets a form after its action, and a
  // person comparing runs wants their arguments to stay.
  const submit = (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const runAsSelect = event.currentTarget.elements.namedItem("run_as");
    if (runAsSelect instanceof HTMLSelectElement) setRanAs(runAsSelect.selectedOptions[0]?.text ?? YOU);
    startTransition(() => action(form));
  };
  return (
    <div className="space-y-6">
      <form onSubmit={submit} className="space-y-4">
        <input type="hidden" name="tool" value={tool} />
        <RunAsSelect id={`${id}-run-as`} options={runAs} />
        {fields.length === 0 ? <p className="text-sm text-slate-600">This tool takes no arguments.</p> : null}
        <div className="grid gap-4 sm:grid-cols-2">
          {fields.map((field) => (
            <Field key={field.name} field={field} id={`${id}-${field.name}`} />
          ))}
        </div>
        <Button type="submit" disabled={pending} aria-disabled={pending}>
          {pending ? "Running…" : `Run ${tool}`}
        </Button>
      </form>
      <FormMessage state={state} />
      <div aria-live="polite">
        {state.status === "ok" ? (
          <>
            <p className="mb-2 text-sm text-slate-600" data-testid="ran-as">
              As seen by: <span className="font-medium text-slate-800">{ranAs}</span>
            </p>
            <ToolAnswer run={state.data} />
          </>
        ) : null}
      </div>
    </div>
  );
}
