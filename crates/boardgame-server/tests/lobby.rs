//! The lobby's ratings: `GET /api/games` says, per player count, the agents
//! rated there with their labels; the builder refuses ratings that do not
//! fit the engine.

mod common;

use boardgame_server::{LobbyAgent, LobbyRatings, Server, ServerError};
use serde_json::{Value, json};

fn ratings(rows: &[(usize, &str, &str)]) -> LobbyRatings {
    let mut r = LobbyRatings::new();
    for &(n, agent, label) in rows {
        r.entry(n).or_default().push(LobbyAgent { agent: agent.into(), label: label.into() });
    }
    r
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_lists_the_rated_agents_with_their_labels() {
    let rated = ratings(&[(3, "heuristic", "strongest"), (3, "random", "easy"), (9, "learned", "strongest")]);
    let s = common::start_with_lobby(common::config(), vec![("korovan", rated)]).await;
    let games: Value = s.client.get(s.url("/api/games")).send().await.unwrap().json().await.unwrap();
    assert_eq!(games["games"][0]["name"], "korovan");
    assert_eq!(
        games["games"][0]["ratings"],
        json!({
            "3": [{ "agent": "heuristic", "label": "strongest" }, { "agent": "random", "label": "easy" }],
            "9": [{ "agent": "learned", "label": "strongest" }]
        })
    );
    assert_eq!(games["games"][1]["ratings"], json!({}), "caravan was not rated");
    // The default list stays, for counts without ratings.
    assert!(games["games"][0]["agents"].as_array().unwrap().len() >= 7);
    s.stop().await;
}

#[test]
fn the_builder_refuses_ratings_that_do_not_fit() {
    let builder = || Server::builder(common::config()).game::<korovan_core::Korovan>().game::<caravan_core::Caravan>();
    let refused = |game: &str, r: LobbyRatings| match builder().lobby(game, r) {
        Err(ServerError::Config(m)) => m,
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("accepted"),
    };
    assert!(refused("chess", ratings(&[(2, "random", "easy")])).contains("not served"));
    assert!(refused("caravan", ratings(&[(5, "random", "easy")])).contains("at 5 players"));
    assert!(refused("caravan", ratings(&[(2, "wizard", "easy")])).contains("unknown agent `wizard`"));
    assert!(refused("caravan", ratings(&[(2, "learned@/etc/passwd", "easy")])).contains("weights file"));
    assert!(refused("caravan", ratings(&[(2, "random", "godlike")])).contains("unknown label `godlike`"));
    let twice = builder().lobby("caravan", ratings(&[(2, "random", "easy")])).unwrap();
    match twice.lobby("caravan", ratings(&[(2, "random", "easy")])) {
        Err(ServerError::Config(m)) => assert!(m.contains("twice"), "{m}"),
        _ => panic!("ratings given twice were accepted"),
    }
}
