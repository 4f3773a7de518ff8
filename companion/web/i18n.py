"""The dashboard's five languages (the rule books' languages): English, Spanish, French, Dutch,
Swedish. Chosen from the browser's Accept-Language, switchable, remembered in the session.

A plain catalogue rather than gettext: the dashboard has a few dozen short strings, shared by the
templates and the page's JavaScript, and this keeps them in one reviewable file with no compile step.
"""

from __future__ import annotations

LANGUAGES = {"en": "English", "es": "Español", "fr": "Français", "nl": "Nederlands", "sv": "Svenska"}

# key: (es, fr, nl, sv); the key itself is the English text
_CATALOGUE: dict[str, tuple[str, str, str, str]] = {
    "Matches": ("Partidas", "Parties", "Potjes", "Matcher"),
    "Won piles": ("Montones ganados", "Plis gagnés", "Gewonnen stapels", "Vunna högar"),
    "Each player spreads their won cards face up under the camera, T! cards too.": (
        "Cada jugador extiende sus cartas ganadas boca arriba bajo la cámara, también las T!.",
        "Chaque joueur étale ses cartes gagnées face visible sous la caméra, cartes T! comprises.",
        "Elke speler spreidt zijn gewonnen kaarten open onder de camera, ook de T!-kaarten.",
        "Varje spelare breder ut sina vunna kort med framsidan upp under kameran, även T!-korten.",
    ),
    "Count": ("Contar", "Compter", "Tellen", "Räkna"),
    "Counting…": ("Contando…", "Comptage…", "Tellen…", "Räknar…"),
    "tracked": ("seguido", "suivi", "bijgehouden", "följt"),
    "camera": ("cámara", "caméra", "camera", "kamera"),
    "picture": ("foto", "photo", "foto", "bild"),
    "A pile larger than the view: add one more picture to the count": (
        "Un montón más grande que la vista: añade otra foto a la cuenta",
        "Un tas plus grand que la vue : ajoutez une photo au compte",
        "Een stapel groter dan het beeld: tel er nog een foto bij",
        "En hög större än bilden: lägg till en bild till i räkningen",
    ),
    "Nothing was changed: if the tracked pile is wrong, undo and correct the moves.": (
        "No se cambió nada: si el montón seguido está mal, deshaz y corrige las jugadas.",
        "Rien n'a été changé : si le tas suivi est faux, annulez et corrigez les coups.",
        "Er is niets veranderd: klopt de bijgehouden stapel niet, maak de zetten ongedaan en verbeter ze.",
        "Inget har ändrats: om den följda högen är fel, ångra och rätta dragen.",
    ),
    "Same cards as tracked.": (
        "Las mismas cartas que las seguidas.",
        "Les mêmes cartes que celles suivies.",
        "Dezelfde kaarten als bijgehouden.",
        "Samma kort som följts.",
    ),
    "The camera is not calibrated yet.": (
        "La cámara aún no está calibrada.",
        "La caméra n'est pas encore calibrée.",
        "De camera is nog niet gekalibreerd.",
        "Kameran är inte kalibrerad än.",
    ),
    "Calibrate it": ("Calibrarla", "La calibrer", "Kalibreren", "Kalibrera den"),
    "The camera does not know your deck yet: it will ask about most moves.": (
        "La cámara aún no conoce tu baraja: preguntará por la mayoría de las jugadas.",
        "La caméra ne connaît pas encore votre jeu : elle demandera la plupart des coups.",
        "De camera kent je kaarten nog niet: ze vraagt naar de meeste zetten.",
        "Kameran känner inte din kortlek än: den frågar om de flesta dragen.",
    ),
    "Teach it your deck": (
        "Enséñale tu baraja",
        "Apprenez-lui votre jeu",
        "Leer haar je kaarten",
        "Lär den din kortlek",
    ),
    "The deck profile is being learned again for this version (a minute or so).": (
        "El perfil de la baraja se está aprendiendo de nuevo para esta versión (un minuto o así).",
        "Le profil du jeu est réappris pour cette version (une minute environ).",
        "Het kaartprofiel wordt opnieuw geleerd voor deze versie (een minuutje).",
        "Kortlekens profil lärs in igen för den här versionen (någon minut).",
    ),
    "The saved deck profile cannot be used.": (
        "El perfil de baraja guardado no se puede usar.",
        "Le profil du jeu enregistré ne peut pas être utilisé.",
        "Het bewaarde kaartprofiel kan niet worden gebruikt.",
        "Den sparade kortleksprofilen kan inte användas.",
    ),
    "Save it again (the kept reads are learned again)": (
        "Guárdalo de nuevo (las lecturas guardadas se aprenden otra vez)",
        "Enregistrez-le à nouveau (les lectures gardées sont réapprises)",
        "Bewaar het opnieuw (de bewaarde lezingen worden opnieuw geleerd)",
        "Spara den igen (de sparade läsningarna lärs in igen)",
    ),
    "Teach the camera your deck": (
        "Enseña tu baraja a la cámara",
        "Apprenez votre jeu à la caméra",
        "Leer de camera je kaarten kennen",
        "Lär kameran din kortlek",
    ),
    "Read the cards": ("Leer las cartas", "Lire les cartes", "Kaarten lezen", "Läs korten"),
    "One card, or a colour spread out": (
        "Una carta, o un color extendido",
        "Une carte, ou une couleur étalée",
        "Eén kaart, of een kleur uitgespreid",
        "Ett kort, eller en färg utspridd",
    ),
    "Laid out, sheet 1": ("Dispuestas, hoja 1", "Disposées, feuille 1", "Uitgelegd, blad 1", "Utlagda, blad 1"),
    "Laid out, sheet 2": ("Dispuestas, hoja 2", "Disposées, feuille 2", "Uitgelegd, blad 2", "Utlagda, blad 2"),
    "Laid out in rows, each card is named by its place. Sheet 1: rows red, orange, yellow, green, each "
    "1 to 6, then backs 7 and 8. Sheet 2: rows blue 1-6, purple 1-6, backs 9 and 10 with the blue 7 and "
    "a T! back, then thief, joker, shifter, bomb.": (
        "Dispuestas en filas, cada carta se nombra por su lugar. Hoja 1: filas rojo, naranja, amarillo, "
        "verde, cada una del 1 al 6, luego los dorsos 7 y 8. Hoja 2: filas azul 1-6, morado 1-6, dorsos 9 "
        "y 10 con el 7 azul y un dorso T!, luego ladrón, comodín, cambia el objetivo, bomba.",
        "Disposées en rangées, chaque carte est nommée par sa place. Feuille 1 : rangées rouge, orange, "
        "jaune, vert, chacune de 1 à 6, puis les dos 7 et 8. Feuille 2 : rangées bleu 1-6, violet 1-6, dos "
        "9 et 10 avec le 7 bleu et un dos T!, puis voleur, joker, change de cible, bombe.",
        "In rijen uitgelegd krijgt elke kaart de naam van haar plaats. Blad 1: rijen rood, oranje, geel, "
        "groen, elk 1 tot 6, dan ruggen 7 en 8. Blad 2: rijen blauw 1-6, paars 1-6, ruggen 9 en 10 met de "
        "blauwe 7 en een T!-rug, dan dief, joker, shifter, bom.",
        "Utlagda i rader får varje kort namnet på sin plats. Blad 1: rader röd, orange, gul, grön, var "
        "och en 1 till 6, sedan baksidor 7 och 8. Blad 2: rader blå 1-6, lila 1-6, baksidor 9 och 10 med "
        "blå 7 och en T!-baksida, sedan tjuv, joker, byt mål, bomb.",
    ),
    "How the cards lie": (
        "Cómo están las cartas",
        "Comment les cartes sont posées",
        "Hoe de kaarten liggen",
        "Hur korten ligger",
    ),
    "Confirm": ("Confirmar", "Confirmer", "Bevestigen", "Bekräfta"),
    "Save the deck profile": (
        "Guardar el perfil de la baraja",
        "Enregistrer le profil du jeu",
        "Kaartprofiel bewaren",
        "Spara kortlekens profil",
    ),
    # the deck enrolment wizard (``enrol.html``, ``enrolment.py``)
    "Lay one card face up under the camera (or a whole colour, spread out, not touching), read them, "
    "check each outline on the picture, correct any wrong name with the list, confirm. One read of each "
    "card works; a second read, the cards moved elsewhere, usually reads better (a glare on one is "
    "outvoted); saving learns your deck (about a minute); cards you skip keep the shipped "
    "recognition. Or, from photos:": (
        "Pon una carta boca arriba bajo la cámara (o todo un color, extendido, sin que se toquen), léelas, "
        "revisa cada contorno en la imagen, corrige con la lista cualquier nombre equivocado y confirma. "
        "Leer cada carta una vez funciona; una segunda lectura, con las cartas en otro sitio, suele leer "
        "mejor (un reflejo en una queda compensado); al guardar se aprende tu baraja (alrededor de un minuto); las "
        "cartas que omitas conservan el reconocimiento de serie. O, desde fotos:",
        "Posez une carte face visible sous la caméra (ou toute une couleur, étalée, sans qu'elles se "
        "touchent), lisez-les, vérifiez chaque contour sur l'image, corrigez tout nom erroné avec la liste, "
        "confirmez. Une lecture par carte fonctionne ; une seconde, les cartes déplacées ailleurs, lit en "
        "général mieux (un reflet sur l'une est compensé) ; l'enregistrement apprend votre jeu (environ une "
        "minute) ; les cartes ignorées gardent la reconnaissance d'origine. Ou, à partir de photos :",
        "Leg een kaart open onder de camera (of een hele kleur, uitgespreid, zonder dat ze elkaar raken), "
        "lees ze, controleer elke omtrek op de foto, verbeter een verkeerde naam met de lijst en bevestig. "
        "Elke kaart één keer lezen werkt; een tweede keer, de kaarten ergens anders, leest meestal beter (een "
        "schittering op één wordt overstemd); bewaren leert je kaarten kennen (ongeveer een minuut); "
        "overgeslagen kaarten houden de meegeleverde herkenning. Of, vanaf foto's:",
        "Lägg ett kort med framsidan upp under kameran (eller en hel färg, utspridd, utan att korten rör "
        "varandra), läs dem, kontrollera varje kontur på bilden, rätta ett felaktigt namn med listan och "
        "bekräfta. Att läsa varje kort en gång fungerar; en andra läsning, med korten flyttade, läser "
        "oftast bättre (ett blänk på den ena vägs upp); att spara lär kameran din kortlek (ungefär en "
        "minut); kort du hoppar över behåller den medföljande igenkänningen. Eller, från foton:",
    ),
    "The cards the camera read, outlined": (
        "Las cartas que leyó la cámara, con su contorno",
        "Les cartes lues par la caméra, avec leur contour",
        "De kaarten die de camera las, omlijnd",
        "Korten som kameran läste, med sina konturer",
    ),
    "(skip)": ("(omitir)", "(ignorer)", "(overslaan)", "(hoppa över)"),
    "none": ("ninguna", "aucune", "geen", "inga"),
    "Confirmed, not saved yet:": (
        "Confirmadas, aún sin guardar:",
        "Confirmées, pas encore enregistrées :",
        "Bevestigd, nog niet bewaard:",
        "Bekräftade, inte sparade än:",
    ),
    "labels in the saved profile": (
        "cartas en el perfil guardado",
        "cartes dans le profil enregistré",
        "kaarten in het bewaarde profiel",
        "kort i den sparade profilen",
    ),
    "Confirmed": ("Confirmado", "Confirmé", "Bevestigd", "Bekräftat"),
    "Kept reads (learned again at each save):": (
        "Lecturas guardadas (se aprenden de nuevo en cada guardado):",
        "Lectures gardées (réapprises à chaque enregistrement) :",
        "Bewaarde lezingen (bij elke keer bewaren opnieuw geleerd):",
        "Sparade läsningar (lärs in igen vid varje sparning):",
    ),
    "Not read yet:": ("Sin leer aún:", "Pas encore lues :", "Nog niet gelezen:", "Inte lästa än:"),
    "Read once (a second read usually reads better):": (
        "Leídas una vez (una segunda lectura suele leer mejor):",
        "Lues une fois (une deuxième lecture lit en général mieux) :",
        "Eén keer gelezen (een tweede lezing leest meestal beter):",
        "Lästa en gång (en andra läsning läser oftast bättre):",
    ),
    "Forget this card's reads": (
        "Olvidar las lecturas de esta carta",
        "Oublier les lectures de cette carte",
        "De lezingen van deze kaart vergeten",
        "Glöm det här kortets läsningar",
    ),
    "Forgotten: save to learn the deck without them": (
        "Olvidadas: guarda para aprender la baraja sin ellas",
        "Oubliées : enregistrez pour réapprendre le jeu sans elles",
        "Vergeten: bewaar om de kaarten zonder ze te leren",
        "Glömda: spara för att lära in kortleken utan dem",
    ),
    "Saving would drop these labels of the saved profile, which have no kept read (read them again to keep them):": (
        "Guardar quitaría estas cartas del perfil guardado, que no tienen lectura guardada (léelas de "
        "nuevo para conservarlas):",
        "Enregistrer retirerait ces cartes du profil enregistré, qui n'ont pas de lecture gardée "
        "(lisez-les à nouveau pour les garder) :",
        "Bewaren laat deze kaarten van het bewaarde profiel vallen, die geen bewaarde lezing hebben "
        "(lees ze opnieuw om ze te houden):",
        "Att spara tar bort dessa kort ur den sparade profilen, som saknar sparad läsning (läs dem igen "
        "för att behålla dem):",
    ),
    "Learning your deck (about a minute)…": (
        "Aprendiendo tu baraja (alrededor de un minuto)…",
        "Apprentissage de votre jeu (environ une minute)…",
        "Je kaarten worden geleerd (ongeveer een minuut)…",
        "Lär in din kortlek (ungefär en minut)…",
    ),
    "Saved: {saved} labels from your deck, {missing} from the shipped model": (
        "Guardado: {saved} cartas de tu baraja, {missing} del modelo de serie",
        "Enregistré : {saved} cartes de votre jeu, {missing} du modèle d'origine",
        "Bewaard: {saved} kaarten van je eigen set, {missing} van het meegeleverde model",
        "Sparat: {saved} kort från din kortlek, {missing} från den medföljande modellen",
    ),
    "error": ("error", "erreur", "fout", "fel"),
    "its edge hardly shows against the table (glare, or a table the card's colour): "
    "skip it and read it again out of direct light, on a darker surface": (
        "su borde apenas se distingue de la mesa (reflejos, o una mesa del color de la carta): "
        "omítela y léela de nuevo sin luz directa, sobre una superficie más oscura",
        "son bord se distingue à peine de la table (reflet, ou une table de la couleur de la carte) : "
        "ignorez-la et relisez-la hors de la lumière directe, sur une surface plus sombre",
        "de rand is nauwelijks te zien tegen de tafel (schittering, of een tafel in de kleur van de kaart): "
        "sla haar over en lees haar opnieuw buiten direct licht, op een donkerder ondergrond",
        "kanten syns knappt mot bordet (blänk, eller ett bord i kortets färg): "
        "hoppa över det och läs det igen utan direkt ljus, på en mörkare yta",
    ),
    "its outline is much smaller than the deck's other cards (a panel printed on the card?): "
    "skip it, or read it again alone on a plain surface": (
        "su contorno es mucho más pequeño que las otras cartas de la baraja (¿un recuadro impreso en la "
        "carta?): omítela o léela de nuevo sola, sobre una superficie lisa",
        "son contour est bien plus petit que les autres cartes du jeu (un cadre imprimé sur la carte ?) : "
        "ignorez-la ou relisez-la seule, sur une surface unie",
        "de omtrek is veel kleiner dan de andere kaarten van de set (een vlak dat op de kaart gedrukt is?): "
        "sla haar over of lees haar opnieuw alleen, op een effen ondergrond",
        "konturen är mycket mindre än kortlekens andra kort (en ruta tryckt på kortet?): "
        "hoppa över det eller läs det igen ensamt, på en slät yta",
    ),
    "its outline is not the shape of the deck's other cards (cut short at a band printed on the card?): "
    "skip it, or read it again alone on a plain surface": (
        "su contorno no tiene la forma de las otras cartas de la baraja (¿cortado donde empieza una franja "
        "impresa en la carta?): omítela o léela de nuevo sola, sobre una superficie lisa",
        "son contour n'a pas la forme des autres cartes du jeu (coupé là où commence une bande imprimée "
        "sur la carte ?) : ignorez-la ou relisez-la seule, sur une surface unie",
        "de omtrek heeft niet de vorm van de andere kaarten van de set (afgesneden waar een gedrukte band "
        "op de kaart begint?): sla haar over of lees haar opnieuw alleen, op een effen ondergrond",
        "konturen har inte samma form som kortlekens andra kort (avskuren där ett tryckt band på kortet "
        "börjar?): hoppa över det eller läs det igen ensamt, på en slät yta",
    ),
    "part of it is burnt white (glare, or too much light): its print is lost there; "
    "skip it and read it again out of direct light": (
        "una parte está quemada en blanco (reflejos, o demasiada luz): allí se pierde lo impreso; "
        "omítela y léela de nuevo sin luz directa",
        "une partie est brûlée en blanc (reflet, ou trop de lumière) : l'impression y est perdue ; "
        "ignorez-la et relisez-la hors de la lumière directe",
        "een deel is wit overbelicht (schittering, of te veel licht): de opdruk gaat daar verloren; "
        "sla haar over en lees haar opnieuw buiten direct licht",
        "en del är utbränd vit (blänk, eller för mycket ljus): trycket går förlorat där; "
        "hoppa över det och läs det igen utan direkt ljus",
    ),
    "no card seen: lay the cards face up, apart": (
        "no se ve ninguna carta: pon las cartas boca arriba, separadas",
        "aucune carte vue : posez les cartes face visible, séparées",
        "geen kaart gezien: leg de kaarten open, los van elkaar",
        "inget kort syns: lägg korten med framsidan upp, isär",
    ),
    "the enrolment wizard needs a camera picture": (
        "el asistente necesita una imagen de la cámara",
        "l'assistant a besoin d'une image de la caméra",
        "de wizard heeft een camerabeeld nodig",
        "guiden behöver en bild från kameran",
    ),
    "the recognition models are not installed": (
        "los modelos de reconocimiento no están instalados",
        "les modèles de reconnaissance ne sont pas installés",
        "de herkenningsmodellen zijn niet geïnstalleerd",
        "igenkänningsmodellerna är inte installerade",
    ),
    "no confirmed card yet: read and confirm some cards first": (
        "aún no hay cartas confirmadas: lee y confirma algunas cartas primero",
        "aucune carte confirmée : lisez et confirmez d'abord quelques cartes",
        "nog geen bevestigde kaart: lees en bevestig eerst een paar kaarten",
        "inget bekräftat kort än: läs och bekräfta några kort först",
    ),
    "The camera cannot follow the table": (
        "La cámara no puede seguir la mesa",
        "La caméra ne peut pas suivre la table",
        "De camera kan de tafel niet volgen",
        "Kameran kan inte följa bordet",
    ),
    "tap the move in, or correct the last move.": (
        "anota la jugada tocando, o corrige la última jugada.",
        "saisissez le coup en touchant, ou corrigez le dernier coup.",
        "tik de zet in, of verbeter de laatste zet.",
        "mata in draget genom att trycka, eller rätta det senaste draget.",
    ),
    "Enter the moves by tapping; the camera is tried again by itself.": (
        "Anota las jugadas tocando; la cámara se reintenta sola.",
        "Saisissez les coups en touchant ; la caméra est réessayée toute seule.",
        "Voer de zetten in door te tikken; de camera wordt vanzelf opnieuw geprobeerd.",
        "Mata in dragen genom att trycka; kameran provas igen av sig själv.",
    ),
    "Calibrate the camera": ("Calibrar la cámara", "Calibrer la caméra", "Camera kalibreren", "Kalibrera kameran"),
    "Find the mat, lock the camera and save": (
        "Buscar el tapete, fijar la cámara y guardar",
        "Trouver le tapis, figer la caméra et enregistrer",
        "Mat zoeken, camera vastzetten en bewaren",
        "Hitta mattan, lås kameran och spara",
    ),
    "New match": ("Nueva partida", "Nouvelle partie", "Nieuw potje", "Ny match"),
    "Players in seating order": (
        "Jugadores en orden de asiento",
        "Joueurs dans l'ordre des places",
        "Spelers in zitvolgorde",
        "Spelare i sittordning",
    ),
    "Edition": ("Edición", "Édition", "Editie", "Utgåva"),
    "Colours": ("Colores", "Couleurs", "Kleuren", "Färger"),
    "Goal": ("Meta", "Objectif", "Doel", "Mål"),
    "Start": ("Empezar", "Commencer", "Beginnen", "Starta"),
    "Referee PIN": ("PIN del árbitro", "PIN de l'arbitre", "Scheidsrechter-PIN", "Domarens PIN"),
    "Log in as referee": (
        "Entrar como árbitro",
        "Se connecter comme arbitre",
        "Inloggen als scheidsrechter",
        "Logga in som domare",
    ),
    "Log out": ("Salir", "Se déconnecter", "Uitloggen", "Logga ut"),
    "Referee": ("Árbitro", "Arbitre", "Scheidsrechter", "Domare"),
    "Watching": ("Mirando", "Spectateur", "Kijker", "Tittar"),
    "Target": ("Objetivo", "Cible", "Doel", "Mål"),
    "Turn": ("Turno", "Tour", "Beurt", "Tur"),
    "Table": ("Mesa", "Table", "Tafel", "Bord"),
    "Camera": ("Cámara", "Caméra", "Camera", "Kamera"),
    "Hand": ("Mano", "Main", "Hand", "Hand"),
    "Deck": ("Mazo", "Pioche", "Stapel", "Lek"),
    "T! pile": ("Pila T!", "Pile T!", "T!-stapel", "T!-hög"),
    "Sum": ("Sumar", "Somme", "Som", "Summa"),
    "Discard": ("Descartar", "Défausser", "Afleggen", "Kasta"),
    "Undo": ("Deshacer", "Annuler", "Ongedaan maken", "Ångra"),
    "Next round": ("Siguiente ronda", "Manche suivante", "Volgende ronde", "Nästa runda"),
    "Round": ("Ronda", "Manche", "Ronde", "Runda"),
    "Dealer": ("Reparte", "Donneur", "Gever", "Giv"),
    "Scores": ("Puntos", "Scores", "Scores", "Poäng"),
    "Total": ("Total", "Total", "Totaal", "Totalt"),
    "Winner": ("Ganador", "Gagnant", "Winnaar", "Vinnare"),
    "Tie for the lead: another round (R5.5)": (
        "Empate en cabeza: otra ronda (R5.5)",
        "Égalité en tête : une autre manche (R5.5)",
        "Gelijkspel aan kop: nog een ronde (R5.5)",
        "Delad ledning: en runda till (R5.5)",
    ),
    "Won cards": ("Cartas ganadas", "Cartes gagnées", "Gewonnen kaarten", "Vunna kort"),
    "T! cards": ("Cartas T!", "Cartes T!", "T!-kaarten", "T!-kort"),
    "used": ("usada", "utilisée", "gebruikt", "använd"),
    "Invalid": ("No válida", "Invalide", "Ongeldig", "Ogiltig"),
    "Valid sum": ("Suma válida", "Somme valide", "Geldige som", "Giltig summa"),
    "discards": ("descarta", "défausse", "legt af", "kastar"),
    "Undone": ("Deshecho", "Annulé", "Ongedaan", "Ångrat"),
    "Join this table": ("Únete a esta mesa", "Rejoindre cette table", "Doe mee aan deze tafel", "Gå med vid bordet"),
    "Virtual table": ("Mesa virtual", "Table virtuelle", "Virtuele tafel", "Virtuellt bord"),
    "Round over": ("Fin de la ronda", "Fin de la manche", "Ronde voorbij", "Rundan är slut"),
    "Export record": ("Exportar registro", "Exporter la partie", "Verslag exporteren", "Exportera protokoll"),
    "Language": ("Idioma", "Langue", "Taal", "Språk"),
    "Choose a hand card, then table cards": (
        "Elige una carta de la mano y luego cartas de la mesa",
        "Choisissez une carte de la main, puis de la table",
        "Kies een handkaart en dan tafelkaarten",
        "Välj ett handkort, sedan bordskort",
    ),
    "Use": ("Usar", "Utiliser", "Gebruik", "Använd"),
    "on": ("contra", "sur", "op", "mot"),
    "live": ("en vivo", "en direct", "live", "live"),
    "No matches yet": ("Aún no hay partidas", "Pas encore de partie", "Nog geen potjes", "Inga matcher än"),
    "Wrong PIN": ("PIN incorrecto", "PIN incorrect", "Verkeerde PIN", "Fel PIN"),
    # camera rounds (companion.referee on the dashboard)
    "The camera asks": ("La cámara pregunta", "La caméra demande", "De camera vraagt", "Kameran frågar"),
    "The first reading is played meanwhile; tap the right one.": (
        "Mientras tanto se juega la primera lectura; toca la correcta.",
        "La première lecture est jouée en attendant ; touchez la bonne.",
        "Intussen wordt de eerste lezing gespeeld; tik de juiste aan.",
        "Den första tolkningen spelas så länge; tryck på den rätta.",
    ),
    "doubtful reading": ("lectura dudosa", "lecture douteuse", "twijfelachtige lezing", "osäker avläsning"),
    "several readings fit": (
        "varias lecturas encajan",
        "plusieurs lectures conviennent",
        "meerdere lezingen passen",
        "flera tolkningar passar",
    ),
    "cards picked up that no sum explains": (
        "cartas recogidas que ninguna suma explica",
        "cartes ramassées qu'aucune somme n'explique",
        "kaarten opgepakt die geen som verklaart",
        "kort upplockade som ingen summa förklarar",
    ),
    "follows a move in question": (
        "sigue a una jugada en duda",
        "suit un coup en question",
        "volgt op een zet in twijfel",
        "följer ett drag i fråga",
    ),
    "holds a T! card the camera cannot read": (
        "tiene una carta T! que la cámara no puede leer",
        "a une carte T! que la caméra ne peut pas lire",
        "heeft een T!-kaart die de camera niet kan lezen",
        "har ett T!-kort som kameran inte kan läsa",
    ),
    "the card played was not seen": (
        "no se vio la carta jugada",
        "la carte jouée n'a pas été vue",
        "de gespeelde kaart is niet gezien",
        "det spelade kortet sågs inte",
    ),
    "a card seen taken lies there again": (
        "una carta que se vio tomada vuelve a estar en la mesa",
        "une carte vue prise est de nouveau là",
        "een kaart die gepakt leek, ligt er weer",
        "ett kort som sågs tas ligger där igen",
    ),
    "its player drew while the card laid lay there": (
        "su jugador robó mientras la carta jugada seguía en la mesa",
        "son joueur a pioché alors que la carte posée était encore là",
        "de speler trok een kaart terwijl de gelegde kaart er nog lag",
        "spelaren drog ett kort medan det lagda kortet låg kvar",
    ),
    "the T! card won lies in front of another player": (
        "la carta T! ganada está delante de otro jugador",
        "la carte T! gagnée est devant un autre joueur",
        "de gewonnen T!-kaart ligt voor een andere speler",
        "det vunna T!-kortet ligger framför en annan spelare",
    ),
    "a refill card looks like one taken": (
        "una carta repuesta es igual a una tomada",
        "une carte de réassort ressemble à une carte prise",
        "een bijgelegde kaart lijkt op een genomen kaart",
        "ett påfyllt kort liknar ett taget kort",
    ),
    "a refill card was not seen": (
        "no se vio una carta repuesta",
        "une carte de réassort n'a pas été vue",
        "een bijgelegde kaart is niet gezien",
        "ett påfyllt kort sågs inte",
    ),
    "a turn may have gone by unseen": (
        "puede que un turno pasara sin verse",
        "un tour est peut-être passé sans être vu",
        "er is misschien een beurt ongezien voorbijgegaan",
        "en tur kan ha gått förbi osedd",
    ),
    "a change by hand was refused: an earlier move may be wrong": (
        "se rechazó un cambio a mano: puede que una jugada anterior esté mal",
        "une modification à la main a été refusée : un coup précédent est peut-être faux",
        "een wijziging met de hand is geweigerd: een eerdere zet is misschien fout",
        "en ändring för hand avvisades: ett tidigare drag kan vara fel",
    ),
    "a T! card was won, which a discard does not win (R4.2)": (
        "se ganó una carta T!, y un descarte no gana ninguna (R4.2)",
        "une carte T! a été gagnée, ce qu'une défausse ne fait pas (R4.2)",
        "er is een T!-kaart gewonnen, en een afleg wint er geen (R4.2)",
        "ett T!-kort vanns, och en avläggning vinner inget (R4.2)",
    ),
    "a card in the centre could not be read": (
        "no se pudo leer una carta del centro",
        "une carte du centre n'a pas pu être lue",
        "een kaart in het midden kon niet gelezen worden",
        "ett kort i mitten kunde inte läsas",
    ),
    "Deal seen": ("Reparto visto", "Donne vue", "Deling gezien", "Given sedd"),
    "Corrected": ("Corregido", "Corrigé", "Verbeterd", "Rättat"),
    "cards": ("cartas", "cartes", "kaarten", "kort"),
    "First dealer": ("Primer repartidor", "Premier donneur", "Eerste gever", "Första giv"),
    "at random (R2.3)": ("al azar (R2.3)", "au hasard (R2.3)", "willekeurig (R2.3)", "slumpvis (R2.3)"),
    "Referee from the camera (cards dealt at the table)": (
        "Arbitrar con la cámara (cartas repartidas en la mesa)",
        "Arbitrer avec la caméra (cartes distribuées à la table)",
        "Scheidsrechter via de camera (kaarten aan tafel gedeeld)",
        "Döm med kameran (korten ges vid bordet)",
    ),
    "Which card did the Thief take from": (
        "¿Qué carta tomó el Ladrón de",
        "Quelle carte le Voleur a-t-il prise à",
        "Welke kaart nam de Dief van",
        "Vilket kort tog Tjuven från",
    ),
    "Enter the deal by hand": (
        "Anotar el reparto a mano",
        "Saisir la donne à la main",
        "De deling met de hand invoeren",
        "Ange given för hand",
    ),
    "The 2 cards face up in the centre": (
        "Las 2 cartas boca arriba en el centro",
        "Les 2 cartes face visible au centre",
        "De 2 open kaarten in het midden",
        "De 2 korten med framsidan upp i mitten",
    ),
    "Tap to enter the target by hand": (
        "Toca para anotar el objetivo a mano",
        "Touchez pour saisir la cible à la main",
        "Tik om het doel met de hand in te voeren",
        "Tryck för att ange målet för hand",
    ),
    "Correct a table card": (
        "Corregir una carta de la mesa",
        "Corriger une carte de la table",
        "Een tafelkaart verbeteren",
        "Rätta ett kort på bordet",
    ),
    "Which card is it really?": (
        "¿Qué carta es en realidad?",
        "Quelle carte est-ce vraiment ?",
        "Welke kaart is het echt?",
        "Vilket kort är det egentligen?",
    ),
    "Which T! card is it really?": (
        "¿Qué carta T! es en realidad?",
        "Quelle carte T! est-ce vraiment ?",
        "Welke T!-kaart is het echt?",
        "Vilket T!-kort är det egentligen?",
    ),
    "Keep it": ("Dejarla", "La garder", "Zo laten", "Behåll det"),
    "Which card did this player give up to the Bomb?": (
        "¿Qué carta entregó este jugador a la Bomba?",
        "Quelle carte ce joueur a-t-il cédée à la Bombe ?",
        "Welke kaart gaf deze speler af aan de Bom?",
        "Vilket kort lämnade den här spelaren till Bomben?",
    ),
    # card colours (R1.1) and T! cards (R1.4), named as in each rule book
    "red": ("rojo", "rouge", "rood", "röd"),
    "orange": ("naranja", "orange", "oranje", "orange"),
    "yellow": ("amarillo", "jaune", "geel", "gul"),
    "green": ("verde", "vert", "groen", "grön"),
    "blue": ("azul", "bleu", "blauw", "blå"),
    "purple": ("morado", "violet", "paars", "lila"),
    "thief": ("Ladrón", "Voleur", "Dief", "Tjuven"),
    "joker": ("Comodín", "Joker", "Joker", "Jokern"),
    "shifter": ("Cambia el objetivo", "Change de cible", "Shifter", "Byt mål"),
    "bomb": ("Bomba", "Bombe", "Bom", "Bomben"),
    "classic": ("clásica", "classique", "klassiek", "klassisk"),
    "extended": ("ampliada", "étendue", "uitgebreid", "utökad"),
    "empty = by player count": (
        "vacío = según el número de jugadores",
        "vide = selon le nombre de joueurs",
        "leeg = naar het aantal spelers",
        "tomt = efter antalet spelare",
    ),
}

_INDEX = {"es": 0, "fr": 1, "nl": 2, "sv": 3}


def translate(text: str, lang: str) -> str:
    """The text in ``lang``; English (or an unknown string) as it is.

    >>> translate("Target", "fr"), translate("Target", "en"), translate("Target", "xx")
    ('Cible', 'Target', 'Target')
    """
    index = _INDEX.get(lang)
    if index is None:
        return text
    entry = _CATALOGUE.get(text)
    return entry[index] if entry else text


def catalogue(lang: str) -> dict[str, str]:
    """Every string in ``lang``, for the page's JavaScript."""
    return {key: translate(key, lang) for key in _CATALOGUE}
