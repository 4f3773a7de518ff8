// Match set-up (referee): players in seating order, edition, colours, goal.
(function () {
  const form = document.getElementById("new-match");
  if (!form) return;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const players = [...form.querySelectorAll("input[name=player]")].map((i) => i.value.trim()).filter(Boolean);
    const picked = [...form.querySelectorAll("input[name=colour]:checked")].map((i) => i.value);
    const body = { players, edition: form.edition.value, goal: form.goal.value || null,
      colours: picked.length > 1 ? picked : null };
    const res = await fetch("/api/matches", { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify(body) });
    const data = await res.json();
    if (res.ok) location.href = "/matches/" + data.id;
    else document.getElementById("new-match-error").textContent = data.message;
  });
})();
