"""Start-up in explicit steps; the last one raises the ready flag the tests wait for."""

from js import document


async def main() -> None:
    document.getElementById("boot-status").textContent = "Ready."
    document.documentElement.dataset.ready = "true"
