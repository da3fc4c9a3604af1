/** The sandbox bank's sign-in form fields (any values work; shown so the flow matches a real bank). */
export function SandboxSignInFields({ institutionName }: { institutionName: string }) {
  return (
    <fieldset className="space-y-3">
      <legend className="text-sm font-medium text-slate-900">Sign in at {institutionName}</legend>
      <p className="text-xs text-slate-500">
        Sandbox bank: no real credentials. The usual test login is filled in.
      </p>
      <div>
        <label htmlFor="bank-username" className="block text-sm text-slate-800">
          Username
        </label>
        <input
          id="bank-username"
          name="bankUsername"
          defaultValue="user_good"
          autoComplete="off"
          required
          className="mt-1 block w-full max-w-xs rounded-md border border-slate-300 px-3 py-2 text-sm"
        />
      </div>
      <div>
        <label htmlFor="bank-password" className="block text-sm text-slate-800">
          Password
        </label>
        <input
          id="bank-password"
          name="bankPassword"
          type="password"
          defaultValue="pass_good"
          autoComplete="off"
          required
          className="mt-1 block w-full max-w-xs rounded-md border border-slate-300 px-3 py-2 text-sm"
        />
      </div>
    </fieldset>
  );
}
