"""The operator's back office: staff and their roles, the significant events' view,
reports from the daily aggregates, players and game recall, approvals, tables."""
